#!/usr/bin/env python3
"""Writes an HLO module the size of OpenXLA's LLaMA-3-8B benchmark module
(about 670 KB) for the speed measurement in docs/hlo.md ("Running a module").

It unrolls the layer of workloads/hlo/llama3-8b-decode-v5e-2x2.hlo
LAYERS times in the ENTRY computation (no while loop: every layer is its own
operations, the harder case for the simulation), each instruction carrying
metadata as long as the real dump's. Standard library only.

Usage: tests/hlo_import/make_large_module.py [LAYERS] > large.hlo   (default 40)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
METADATA = (', metadata={{op_name="jit(train_step)/jvp(TransformerLinenPure.apply)/TransformerLinenPure/'
            'decoder/layers_{layer}/self_attention/{name}" source_file="/opt/maxtext/src/MaxText/layers/'
            'attentions.py" source_line=1234 source_end_line=1240 source_column=8 source_end_column=71}}')


def main():
    layers = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with open(os.path.join(HERE, "..", "..", "workloads", "hlo", "llama3-8b-decode-v5e-2x2.hlo"), encoding="utf-8") as f:
        text = f.read()
    head = text[:text.index("%layer (p:")]
    body = text[text.index("%layer (p:"):text.index("%layers_left")]
    lines = body.split("\n")[1:]
    instructions = [l for l in lines if l.startswith("  %") and "get-tuple-element(%p)" not in l
                    and " parameter(0)" not in l]
    out = [head.replace("HloModule llama3_8b_decode_mirror", "HloModule large_unrolled")]
    out.append("ENTRY %main (tokens: s32[8], table: bf16[32064,1024], cache: bf16[2,1025,2,8,128], "
               "w_qkv: bf16[2048,3072], w_o: bf16[2048,2048], w_up_gate: bf16[2048,14336], "
               "w_down: bf16[7168,2048], i: s32[]) -> bf16[8,1024] {")
    params = ["%tokens = s32[8]{0} parameter(0)", "%table = bf16[32064,1024]{1,0} parameter(1)",
              "%cache = bf16[2,1025,2,8,128]{4,3,2,1,0} parameter(2)",
              "%w_qkv = bf16[2048,3072]{1,0} parameter(3)", "%w_o = bf16[2048,2048]{1,0} parameter(4)",
              "%w_up_gate = bf16[2048,14336]{1,0} parameter(5)",
              "%w_down = bf16[7168,2048]{1,0} parameter(6)", "%i = s32[] parameter(7)"]
    out += ["  " + p for p in params]
    out.append("  %h.0 = bf16[8,1024]{1,0} gather(%table, %tokens), offset_dims={1}, "
               "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,1024}")
    channel = 1
    for layer in range(layers):
        names = {}
        for line in instructions:
            m = re.match(r"  (%[A-Za-z0-9_.\-]+) = ", line)
            names[m.group(1)] = f"{m.group(1)}.{layer}"
        names["%h"] = f"%h.{layer}"
        for line in instructions:
            if line.startswith("  ROOT"):
                continue
            new = re.sub(r"%[A-Za-z0-9_.\-]+", lambda m: names.get(m.group(0), m.group(0)), line)
            new = re.sub(r", metadata=\{[^}]*\}", "", new)
            if "channel_id=" in new:
                new = re.sub(r"channel_id=\d+", f"channel_id={channel}", new)
                channel += 1
            name = re.match(r"  %([A-Za-z0-9_.\-]+)", new).group(1)
            out.append(new + METADATA.format(layer=layer, name=name))
        out.append(f"  %h.{layer + 1} = bf16[8,1024]{{1,0}} copy(%ffn.residual.{layer})")
    out.append(f"  ROOT %out = bf16[8,1024]{{1,0}} negate(%h.{layers})")
    out.append("}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
