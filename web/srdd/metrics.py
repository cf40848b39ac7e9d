# MAEL's Table 3 for one generated project (Roundtable's SRDD scoring, in
# the CLI's CPython and in the page's Pyodide alike): reads
# {"files": [{"path", "text"}]} on stdin, writes one JSON object:
#   files       the project's .py files
#   lines       lines of code: lines holding a token that is not a comment
#               (blank and comment-only lines do not count)
#   tokens      Python tokens, comments and layout (line breaks, indents) aside;
#               an f-string (or t-string) is one token, as Python 3.11 reads
#               it, though 3.12 and later split it into parts: the CLI's
#               CPython and the page's Pyodide (3.14) then count alike
#   functions   def and async def, methods included
#   complexity  total cyclomatic complexity (McCabe): 1 for each file and
#               each function, plus 1 for each decision — if / elif, a
#               conditional expression, for, while, except, each `and` /
#               `or` operand after the first, each comprehension's for and
#               if, each match case
#   unparsed    files Python could not parse (their lines and tokens count
#               as far as Python could read them, their functions and
#               complexity do not)
import ast
import io
import json
import sys
import tokenize

LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER, tokenize.ENCODING}


# The tokens 3.12 and later split an f-string (t-string: 3.14) into: a
# START ... END run (nested ones inside) is one token spanning the run.
STARTS = {getattr(tokenize, n) for n in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, n)}
ENDS = {getattr(tokenize, n) for n in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, n)}


class Span:
    def __init__(self, start, end):
        self.start, self.end = start, end


def code_tokens(text):
    out = []
    depth, opened = 0, None
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type in STARTS:
                if depth == 0:
                    opened = t.start
                depth += 1
            elif t.type in ENDS and depth:
                depth -= 1
                if depth == 0:
                    out.append(Span(opened, t.end))
            elif depth == 0 and t.type not in LAYOUT:
                out.append(t)
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


class Decisions(ast.NodeVisitor):
    def __init__(self):
        self.count = 0
        self.functions = 0

    def generic_visit(self, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.functions += 1
            self.count += 1
        elif isinstance(node, (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler)):
            self.count += 1
        elif isinstance(node, ast.BoolOp):
            self.count += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            self.count += 1 + len(node.ifs)
        elif hasattr(ast, "match_case") and isinstance(node, ast.match_case):
            self.count += 1
        super().generic_visit(node)


def measure(files):
    py = [f for f in files if f["path"].endswith(".py")]
    lines = tokens = functions = complexity = unparsed = 0
    for f in py:
        text = f["text"]
        toks = code_tokens(text)
        tokens += len(toks)
        held = set()
        for t in toks:
            held.update(range(t.start[0], t.end[0] + 1))
        lines += len(held)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            unparsed += 1
            continue
        d = Decisions()
        d.visit(tree)
        functions += d.functions
        complexity += 1 + d.count
    return {"files": len(py), "lines": lines, "tokens": tokens, "functions": functions, "complexity": complexity, "unparsed": unparsed}


if __name__ == "__main__":
    print(json.dumps(measure(json.load(sys.stdin)["files"])))
