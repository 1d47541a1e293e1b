"""Running an emitted module in a separate, isolated Python (`-I -S`: no site packages, no user
paths, no current directory) that is given numpy's directory and the module's directory only,
with an import hook that refuses srcad: if the emitted code imported srcad, or relied on
anything srcad sets up at run time, it would fail there. (Shared by the tests of emit and of
the modules SciPy's distributions emit.)"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

NUMPY_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))

RUNNER = textwrap.dedent('''
    import importlib, importlib.abc, json, sys

    class RefuseSrcad(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "srcad" or name.startswith("srcad."):
                raise ImportError("srcad is not available to emitted modules")
            return None

    sys.meta_path.insert(0, RefuseSrcad())
    sys.path[:0] = [{numpy_parent!r}, {module_dir!r}]
    try:
        import srcad
    except ImportError:
        pass
    else:
        raise SystemExit("srcad is importable in the isolated interpreter")

    import numpy as np
    module = importlib.import_module({module_name!r})
    assert "srcad" not in sys.modules
    case = json.load(open({case_path!r}))
    args = [np.asarray(a) if isinstance(a, list) else a for a in case["args"]]
    kwargs = {{k: np.asarray(v) if isinstance(v, list) else v
              for k, v in case["kwargs"].items()}}
    out = getattr(module, case["function"])(*args, **kwargs)
    def flat(value):
        return [v for item in value for v in flat(item)] if isinstance(value, tuple) else [value]
    outs = flat(out)
    json.dump([np.asarray(o, dtype=float).tolist() for o in outs], sys.stdout)
''')


def run_isolated(module_path, function, args, kwargs=None):
    """Call `function` of the module at module_path in an isolated interpreter; its results."""
    module_dir, filename = os.path.split(os.path.abspath(module_path))
    case_path = os.path.join(module_dir, f"{filename}.case.json")
    with open(case_path, "w") as handle:
        json.dump({"function": function,
                   "args": [np.asarray(a).tolist() if isinstance(a, np.ndarray) else a
                            for a in args],
                   "kwargs": {k: np.asarray(v).tolist() if isinstance(v, np.ndarray) else v
                              for k, v in (kwargs or {}).items()}}, handle)
    runner = os.path.join(module_dir, f"{filename}.runner.py")
    with open(runner, "w") as handle:
        handle.write(RUNNER.format(numpy_parent=NUMPY_PARENT, module_dir=module_dir,
                                   module_name=filename[:-3], case_path=case_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run([sys.executable, "-I", "-S", runner], cwd=module_dir, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"emitted module failed in isolation:\n{done.stderr}"
    return [np.asarray(o) for o in json.loads(done.stdout)]


def assert_same(got, want, tol=1e-13):
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.max(np.abs(got - want), initial=0.0) <= tol * max(1.0, np.max(np.abs(want),
                                                                             initial=0.0))
