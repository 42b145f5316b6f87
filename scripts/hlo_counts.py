#!/usr/bin/env python3
"""Counts an XLA HLO text module's dot FLOPs and collective bytes its own way.

An independent check of `podsim hlo-stats` (src/hlo_import/stats.h): regular
expressions over the text, not podsim's parser, and the bytes of a
collective from its result shape where podsim takes its operands'. Prints
the same lines as `podsim hlo-stats FILE`:

    module NAME
    dots N
    dot_flops F
    collective KIND count C bytes V

V follows proto/podsim/workload.proto: all-reduce and reduce-scatter each
chip's input, all-gather and all-to-all the whole array, a permute what each
chip sends. Each instruction counts once (a while body once); async starts
count under their synchronous name. Standard library only.

Usage: scripts/hlo_counts.py FILE.hlo
"""
import re
import sys

BITS = {"pred": 8, "s2": 2, "u2": 2, "s4": 4, "u4": 4, "f4e2m1fn": 4, "s8": 8, "u8": 8,
        "s16": 16, "u16": 16, "f16": 16, "bf16": 16, "s32": 32, "u32": 32, "f32": 32,
        "s64": 64, "u64": 64, "f64": 64, "c64": 64, "c128": 128}
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
               "collective-permute", "collective-broadcast", "ragged-all-to-all")
ARRAY = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\]")
INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?([A-Za-z0-9_.\-$]+)\s*=\s*(.*)$")
HEADER_INT = re.compile(r"\b(replica_count|num_partitions)=(\d+)")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] if not line.lstrip().startswith('"') else line
                     for line in text.split("\n"))


def closing(text, start, open_ch, close_ch):
    """Index just past the bracket matching text[start] (quotes skipped)."""
    depth, i, quoted = 0, start, False
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == open_ch:
            depth += 1
        elif ch == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def split_shape(rest):
    """(shape text, text after it) of an instruction's right-hand side."""
    if rest.startswith("("):
        end = closing(rest, 0, "(", ")")
        return rest[:end], rest[end:].lstrip()
    m = re.match(r"[a-z][a-z0-9]*\[[^\]]*\]", rest) or re.match(r"(token|opaque)(\[\])?", rest)
    end = m.end()
    if end < len(rest) and rest[end] == "{":
        end = closing(rest, end, "{", "}")
    return rest[:end], rest[end:].lstrip()


def arrays(shape):
    """[(type, [dims])] of every array in a shape, layouts ignored."""
    shape = re.sub(r"\{[^{}]*\}", "", shape)
    shape = re.sub(r"\{[^{}]*\}", "", shape)
    out = []
    for m in ARRAY.finditer(shape):
        dims = [int(d.replace("<=", "")) for d in m.group(2).split(",") if d.strip()]
        out.append((m.group(1), dims))
    return out


def elements(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def nbytes(shape):
    return sum((elements(d) * BITS.get(t, 0) + 7) // 8 for t, d in arrays(shape))


def attribute(attrs, key):
    m = re.search(r"\b" + re.escape(key) + r"=", attrs)
    if not m:
        return None
    i = m.end()
    if i < len(attrs) and attrs[i] in "{[":
        pair = {"{": "}", "[": "]"}[attrs[i]]
        end = closing(attrs, i, attrs[i], pair)
        # the iota form continues: [G,S]<=[d...]T(p...)
        tail = re.match(r"<=\[[^\]]*\](T\([^)]*\))?", attrs[end:])
        return attrs[i:end + (tail.end() if tail else 0)]
    return re.match(r"[^,\s]*", attrs[i:]).group(0)


def group_size(attrs, opcode, replicas, partitions):
    groups = attribute(attrs, "replica_groups")
    channel = attribute(attrs, "channel_id") is not None
    has_field = opcode.split("-start")[0] in ("all-reduce", "all-gather", "reduce-scatter")
    global_ids = attribute(attrs, "use_global_device_ids") == "true"
    size = None
    if groups and groups.startswith("["):
        size = int(re.match(r"\[\s*\d+\s*,\s*(\d+)\s*\]", groups).group(1))
    elif groups and groups != "{}":
        first = re.search(r"\{([^{}]*)\}", groups[1:]).group(1)
        size = len([x for x in first.split(",") if x.strip()])
    if not channel:  # cross-replica
        return size or replicas
    if not has_field:  # cross-partition
        return size or partitions
    if global_ids:  # flattened ids
        return size or replicas * partitions
    return (size or replicas) * partitions  # cross-replica-and-partition


def count(text):
    text = strip_comments(text)
    name = re.search(r"HloModule\s+([^\s,]+)", text).group(1)
    header = text[:text.find("\n")]
    ints = dict((k, int(v)) for k, v in HEADER_INT.findall(header))
    replicas, partitions = ints.get("replica_count", 1), ints.get("num_partitions", 1)
    dots, flops = 0, 0
    collectives = {}
    shapes = {}  # per computation: instruction name -> shape text
    for line in text.split("\n"):
        if line.rstrip().endswith("{") and "=" not in line.split("(")[0]:
            shapes = {}
            continue
        m = INSTRUCTION.match(line)
        if not m or line.lstrip().startswith("HloModule"):
            continue
        inst, rest = m.group(1), m.group(2)
        shape, rest = split_shape(rest)
        shapes[inst] = shape
        om = re.match(r"([a-z][a-z0-9\-]*)\(", rest)
        if not om:
            continue
        opcode = om.group(1)
        end = closing(rest, om.end() - 1, "(", ")")
        operands = re.findall(r"%?([A-Za-z0-9_.\-$]+)\s*(?:,|$)", rest[om.end():end - 1])
        attrs = rest[end:]
        if opcode == "dot":
            lhs = arrays(shapes.get(operands[0], ""))
            contracting = attribute(attrs, "lhs_contracting_dims") or "{}"
            k = 1
            for d in re.findall(r"\d+", contracting):
                k *= lhs[0][1][int(d)]
            dots += 1
            flops += 2 * elements(arrays(shape)[0][1]) * k
            continue
        kind = opcode[:-6] if opcode.endswith("-start") else opcode
        if kind not in COLLECTIVES or (opcode.endswith("-start") and kind == "collective-broadcast"):
            continue
        if opcode.endswith("-start"):
            outs = arrays(shape)
            # (operands..., results...) or, for all-reduce-start, the result
            result = sum(nbytes(shapes.get(o, "")) for o in operands[:1 if "permute" in kind else None])
            if kind == "all-gather":
                half = outs[len(outs) // 2:]
                result = sum((elements(d) * BITS.get(t, 0) + 7) // 8 for t, d in half)
        else:
            result = nbytes(shape)
        if kind == "reduce-scatter":
            result *= group_size(attrs, opcode, replicas, partitions)
        elif kind == "all-to-all":
            result *= group_size(attrs, opcode, replicas, partitions)
        c = collectives.setdefault(kind, [0, 0])
        c[0] += 1
        c[1] += result
    lines = [f"module {name}", f"dots {dots}", f"dot_flops {flops}"]
    for kind in sorted(collectives):
        lines.append(f"collective {kind} count {collectives[kind][0]} bytes {collectives[kind][1]}")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.stdout.write(count(f.read()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
