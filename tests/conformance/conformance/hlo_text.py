"""Just enough HLO-text reading to describe a case: opcodes, custom-call targets and
the entry computation's parameter and result shapes."""
import re

_INSTR = re.compile(r"^\s*(?:ROOT\s+)?[\w.\-]+\s*=\s*(.*)$")
_TARGET = re.compile(r'custom_call_target="([^"]+)"')
_ARRAY = re.compile(r"^(\w+)\[([0-9,]*)\]")
_COMMENT = re.compile(r"/\*.*?\*/")  # JAX prints /*index=5*/ inside long tuple shapes


def _skip_shape(text):
    """Index just past the shape at the start of `text` (a tuple shape has nested parens)."""
    if not text.startswith("("):
        return text.index(" ")
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i + 1
    raise ValueError(f"unbalanced tuple shape in {text!r}")


def opcodes(module_text):
    """The opcode of every instruction, in order of appearance."""
    ops = []
    for line in _COMMENT.sub("", module_text).splitlines():
        m = _INSTR.match(line)
        if not m or line.startswith("HloModule"):
            continue
        rest = m.group(1)
        rest = rest[_skip_shape(rest):].lstrip()
        ops.append(rest[: rest.index("(")])
    return ops


def custom_call_targets(module_text):
    return sorted(set(_TARGET.findall(module_text)))


def split_top_level(text):
    """Splits `a, (b, c), d` at the commas that are not inside brackets of any kind."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _flatten_shape(text):
    """[(element type, dims)] of the arrays in a (possibly nested tuple) shape."""
    text = text.strip()
    if text.startswith("("):
        out = []
        for part in split_top_level(text[1:-1]):
            out += _flatten_shape(part)
        return out
    m = _ARRAY.match(text)
    if not m:
        raise ValueError(f"cannot read shape {text!r}")
    dims = [int(d) for d in m.group(2).split(",") if d]
    return [(m.group(1), dims)]


def entry_signature(module_text):
    """(parameter arrays, result arrays) of `entry_computation_layout`, each a list of
    (element type, dims); tuple results are flattened in order."""
    header = _COMMENT.sub("", module_text.splitlines()[0])
    start = header.index("entry_computation_layout={") + len("entry_computation_layout={")
    depth, end = 1, start
    while depth:
        depth += header[end] == "{"
        depth -= header[end] == "}"
        end += 1
    layout = header[start:end - 1]
    params, result = layout.split(")->", 1)
    param_shapes = []
    for p in split_top_level(params[1:]):
        param_shapes += _flatten_shape(p)
    return param_shapes, _flatten_shape(result)
