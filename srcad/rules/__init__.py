"""Layer 4, rules: what srcad knows how to differentiate. registry holds the templates,
operations says which operation a line performs, instantiate writes a template out for one
call, calls names and binds the derivatives of user callees."""
