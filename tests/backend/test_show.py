"""Derivatives show their code: repr (short), .source (the whole module) on every object the API
returns, _repr_html_ (Jupyter: the source highlighted beside the user's lines it points to), and
`srcad show --html` (a self-contained page, the function and its derivative side by side, lines
linked both ways). Pages are read back with html.parser: every link must land on an element of
the page, and everything from the user must come back as text, never as markup."""
import builtins
import html.parser
import linecache
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad import cli
from srcad.backend.html import highlight_lines

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/
REPO = os.path.dirname(HERE)

USER_FILE = '''import numpy as np

LABEL = "<script>alert('x')</script> & co"


def helper(z, *unused):  # (*: a call srcad keeps, not written in: frontend/inline.py)
    return np.tanh(z)


def loss_script(x, W):
    """Docstring with <script>alert(1)</script> & "quotes"."""
    # a comment with <b>bold</b> & an ampersand
    s = "</pre><script>evil()</script>&amp;"
    h = helper(x @ W)  # trailing <i>
    return np.sum(h ** 2) + len(s) * 0.0
'''
H_LINE = 14  # `h = helper(x @ W)` in USER_FILE
RETURN_LINE = 15


class Page(html.parser.HTMLParser):
    """What a page holds: ids, links (and the line they are on), the text of each line, the
    tags, and the text inside <details> and the header."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.line_text, self.tags = {}, [], {}, []
        self.line = None
        self.details = 0
        self.folded_text = []
        self.head = 0
        self.head_text = []
        self.all_text = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            assert attrs["id"] not in self.ids, f"two elements with id {attrs['id']}"
            self.ids[attrs["id"]] = tag
        if tag == "span" and "ln" in (attrs.get("class") or "").split():
            self.line = attrs["id"]
            self.line_text[self.line] = ""
        if tag == "a" and "href" in attrs:
            self.links.append((self.line, attrs["href"]))
        if tag == "details":
            self.details += 1
        if tag == "div" and attrs.get("class") == "srcad-head":
            self.head += 1

    def handle_endtag(self, tag):
        if tag == "details":
            self.details -= 1
        if tag == "div" and self.head:
            self.head = 0

    def handle_data(self, data):
        self.all_text.append(data)
        if self.line is not None:
            self.line_text[self.line] += data
        if self.details:
            self.folded_text.append(data)
        if self.head:
            self.head_text.append(data)


def user_line_id(page, number):
    found = [i for i in page.ids if i.endswith(f"u0-{number}")]
    assert len(found) == 1, (number, found)
    return found[0]


@pytest.fixture
def user_file(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    folder = tmp_path / "src"
    folder.mkdir()
    path = folder / "my-<b>&model.py"  # (not a module name; markup in the file name)
    path.write_text(USER_FILE)
    yield path
    sys.modules.pop("my-<b>&model", None)


def show_page(user_file, tmp_path, *options):
    out = tmp_path / "page.html"
    status = cli.main(["show", "--html", f"{user_file}:loss_script", *options, "-o", str(out)])
    assert status == 0
    return out.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# srcad show --html

def test_show_html_writes_a_page_whose_links_all_land(user_file, tmp_path, capsys):
    text = show_page(user_file, tmp_path, "--wrt", "0,1")
    assert "wrote" in capsys.readouterr().out
    page = Page(text)
    assert text.startswith("<!DOCTYPE html>")
    assert page.links, "no links"
    for _, href in page.links:
        assert href.startswith("#") and href[1:] in page.ids, href


def test_show_html_links_generated_lines_and_user_lines_both_ways(user_file, tmp_path):
    page = Page(show_page(user_file, tmp_path, "--wrt", "0,1"))
    h_line = user_line_id(page, H_LINE)
    # the user line links to the first generated line for it ...
    out_of_h = [href for line, href in page.links if line == h_line]
    assert len(out_of_h) == 1
    generated = out_of_h[0][1:]
    assert "grad of: h = helper(x @ W)" in page.line_text[generated]
    # ... whose comment links back to the user line
    assert (generated, f"#{h_line}") in page.links
    # every generated line with a comment pointing at the user's file links there
    pointing = [i for i, t in page.line_text.items()
                if "grad of:" in t and "my-<b>&model.py:" in t]
    assert len(pointing) >= 2
    for line in pointing:
        assert any(source == line and href.startswith("#") and "u" in href
                   for source, href in page.links), line
    # the helper's derivative points at the helper's lines, shown too
    assert any(i.endswith(f"u1-{7}") for i in page.ids)  # (return np.tanh(z), line 7)
    assert f"#{user_line_id(page, RETURN_LINE)}" in {href for _, href in page.links}


def test_show_html_escapes_everything_from_the_user(user_file, tmp_path):
    text = show_page(user_file, tmp_path, "--wrt", "0,1")
    page = Page(text)
    assert "script" not in page.tags and "b" not in page.tags and "i" not in page.tags
    assert set(page.tags) <= {"html", "head", "meta", "title", "body", "style", "div", "h1",
                              "h2", "dl", "dt", "dd", "small", "pre", "span", "a", "details",
                              "summary"}
    all_text = "".join(page.all_text)
    for shown in ["<script>alert(1)</script> & \"quotes\"", "<b>bold</b> & an ampersand",
                  "</pre><script>evil()</script>&amp;", "# trailing <i>", "my-<b>&model.py"]:
        assert shown in all_text, shown
    assert "&amp;amp;" in text  # (the user's own `&amp;`, escaped once more)


def test_show_html_folds_the_runtime_helpers_and_states_mode_wrt_shapes(user_file, tmp_path):
    page = Page(show_page(user_file, tmp_path, "--wrt", "0,1"))
    folded = "".join(page.folded_text)
    assert "def unbroadcast(" in folded or "def in_dtype_of(" in folded
    assert "def loss_script_grad(" not in folded
    head = " ".join(page.head_text)
    assert "reverse mode" in head and "x (argument 0), W (argument 1)" in head
    assert "any" in head  # shapes: generic code

    page = Page(show_page(user_file, tmp_path, "--wrt", "1", "--mode", "forward", "--args",
                          "np.ones((5, 4)), np.ones((4, 3))"))
    head = " ".join(page.head_text)
    assert "forward mode" in head and "W (argument 1)" in head
    assert "float64[5, 4], float64[4, 3] (specialized)" in head


def test_show_html_through_the_command(user_file, tmp_path):
    out = tmp_path / "cmd.html"
    done = subprocess.run([sys.executable, "-m", "srcad", "show", "--html", f"{user_file}:helper",
                           "-o", str(out)], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    page = Page(out.read_text(encoding="utf-8"))
    assert any("def helper_grad(" in t for t in page.line_text.values())


def test_show_html_to_standard_output_and_refusing_a_stage(user_file, capsys):
    assert cli.main(["show", "--html", f"{user_file}:helper"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")
    assert cli.main(["show", "--html", f"{user_file}:helper", "--stage", "anf"]) == 2
    assert "--stage" in capsys.readouterr().err


def test_show_text_with_example_arguments(user_file, capsys):
    assert cli.main(["show", f"{user_file}:loss_script", "--args",
                     "np.ones((5, 4)), np.ones((4, 3))"]) == 0
    assert "def loss_script_grad(x, W):" in capsys.readouterr().out
    assert cli.main(["show", f"{user_file}:helper", "--args", "np.ones(("]) == 2
    assert "--args" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Derivative objects: repr, source, _repr_html_

def loss(x, W):
    h = np.tanh(x @ W)
    return np.sum(h ** 2)


class Model:
    def __init__(self):
        self.scale = 2.0

    def energy(self, x):
        return np.sum(x ** 2)


def test_repr_stays_short():
    for obj in [srcad.grad(loss), srcad.grad(loss, wrt=(0, 1)), srcad.jvp(loss),
                srcad.hessian(loss), srcad.hvp(loss), srcad.grad(Model().energy)]:
        text = repr(obj)
        assert text.startswith("<srcad ") and "\n" not in text and len(text) < 100, text
        assert "loss" in text or "energy" in text


def test_source_exists_on_every_derivative_object():
    x, W = np.ones((3, 4)), np.full((4, 2), 0.1)
    assert srcad.grad(loss).source == srcad.source(loss)
    assert srcad.grad(loss, wrt=(0, 1)).source == srcad.source(loss, wrt=(0, 1))
    assert srcad.jvp(loss).source == srcad.source(loss, mode="forward")
    bound = srcad.grad(Model().energy)
    assert "def energy_grad(self, x):" in bound.source
    for second in (srcad.hessian(loss), srcad.hvp(loss)):
        text = second.source
        assert "forward mode (jvp) of loss_grad" in text
        compile(text, "<second order>", "exec")
    assert np.allclose(srcad.hvp(loss)(x, W, np.ones((3, 4))),
                       srcad.hessian(loss)(x, W).reshape(12, 12).sum(axis=1).reshape(3, 4))


def test_repr_html_shows_the_source_beside_the_user_lines():
    for obj in [srcad.grad(loss), srcad.grad(Model().energy), srcad.hessian(loss),
                srcad.hvp(loss)]:
        text = obj._repr_html_()
        page = Page(text)
        assert "script" not in page.tags
        for _, href in page.links:
            assert href[1:] in page.ids, href
        assert any("def " in t for t in page.line_text.values())
    page = Page(srcad.grad(loss)._repr_html_())
    user = [i for i, t in page.line_text.items() if "h = np.tanh(x @ W)" in t and "grad of" not in t]
    assert len(user) == 1
    assert any(line == user[0] for line, _ in page.links)  # linked to its derivative


def test_repr_html_of_two_derivatives_on_one_page_have_their_own_ids():
    first, second = srcad.grad(loss)._repr_html_(), srcad.grad(loss, wrt=1)._repr_html_()
    Page(first + second)  # (asserts no id twice)


def test_repr_html_of_a_notebook_function_links_its_cell_lines():
    source = textwrap.dedent('''
        import numpy as np
        W = np.ones(3)

        def cell_loss(x):
            y = np.sin(x * W)
            return np.sum(y)
    ''')
    filename = f"/tmp/ipykernel_{os.getpid()}/8675309.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (the test's own cell)
    page = Page(srcad.grad(namespace["cell_loss"])._repr_html_())
    target = [i for i in page.ids if i.endswith("u0-6")]  # y = np.sin(x * W)
    assert target and any(href == f"#{target[0]}" for _, href in page.links)


# ---------------------------------------------------------------------------------------------
# the highlighter

def test_highlight_marks_keywords_strings_numbers_comments_and_escapes():
    text = 'def f(x):\n    """a <doc>\n    & more"""\n    return x * 2.5  # <c> & d\n'
    lines = highlight_lines(text)
    assert len(lines) == 4
    assert lines[0].startswith('<span class="k">def</span> <span class="f">f</span>(x):')
    assert lines[1] == '    <span class="s">&quot;&quot;&quot;a &lt;doc&gt;</span>'
    assert lines[2] == '<span class="s">    &amp; more&quot;&quot;&quot;</span>'
    assert '<span class="k">return</span> x * <span class="n">2.5</span>  ' \
           '<span class="c"># &lt;c&gt; &amp; d</span>' == lines[3].strip()


def test_highlight_of_text_the_tokenizer_cannot_read_is_escaped_plain():
    assert highlight_lines("    x = (1,\n<b>") == ["    x = (1,", "&lt;b&gt;"]


# ---------------------------------------------------------------------------------------------
# a real browser (optional: Debian's chromium)

CHROMIUM = next((path for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser")
                 if os.path.exists(path)), None)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install "
                                             "chromium): the page is checked with html.parser")
def test_page_renders_in_headless_chromium(user_file, tmp_path):
    page = tmp_path / "page.html"
    assert cli.main(["show", "--html", f"{user_file}:loss_script", "--wrt", "0,1", "-o",
                     str(page)]) == 0
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
             "--window-size=1400,900"]
    shot = tmp_path / "shot.png"
    done = subprocess.run(flags + [f"--screenshot={shot}", page.as_uri()], capture_output=True,
                          text=True, timeout=180)
    assert shot.exists(), done.stderr
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1400, 900)
    assert len(data) > 30_000  # (text in two panes, not a blank page)
    dom = subprocess.run(flags + ["--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=180).stdout
    assert "srcad-panes" in dom and "<script" not in dom  # (the user's <script> is text)
