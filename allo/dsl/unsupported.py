"""What to write instead of the Python constructs kernels do not support (the builder's error hints).

Example::

    UNSUPPORTED_HINTS["Break"]   # 'break is not supported in kernels; use a while loop with a condition flag'
"""
UNSUPPORTED_HINTS = {
    "Try": "exceptions are not supported in kernels; remove the try block",
    "Lambda": "lambdas are not supported in kernels; write a separate kernel function",
    "ListComp": "comprehensions are not supported in kernels; write a for loop",
    "SetComp": "comprehensions are not supported in kernels; write a for loop",
    "DictComp": "comprehensions are not supported in kernels; write a for loop",
    "GeneratorExp": "generator expressions are not supported in kernels; write a for loop",
    "Break": "break is not supported in kernels; use a while loop with a condition flag",
    "Continue": "continue is not supported in kernels; guard the loop body with an if",
    "With": "with-statements are not supported in kernels (except allo.meta_if/meta_elif/meta_else/meta_for)",
    "Raise": "raise is not supported in kernels",
    "Assert": "assert is not supported in kernels",
    "Global": "global declarations are not supported in kernels; pass the value as an argument",
    "Nonlocal": "nonlocal declarations are not supported in kernels",
    "Yield": "generators are not supported in kernels",
    "Await": "async code is not supported in kernels",
    "Delete": "del is not supported in kernels",
    "Import": "imports inside kernels are not supported; import at module level",
    "ImportFrom": "imports inside kernels are not supported; import at module level",
    "AsyncFunctionDef": "async functions are not supported in kernels",
    "ClassDef": "class definitions are not supported in kernels",
    "Dict": "dicts are not supported in kernels",
    "Set": "sets are not supported in kernels",
    "JoinedStr": "f-strings are not supported in kernels",
    "Starred": "star-expressions are not supported in kernels",
    "NamedExpr": "the walrus operator is not supported in kernels",
    "Match": "match statements are not supported in kernels; use if/elif",
}
