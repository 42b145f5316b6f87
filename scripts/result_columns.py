#!/usr/bin/env python3
"""Writes the CSV column table of `podsim run` (docs/outputs.md) from the
descriptor of podsim.Result, so the documentation cannot go stale.

Usage:
  scripts/result_columns.py --module-dir build/python                # print the table
  scripts/result_columns.py --module-dir DIR --check docs/outputs.md # exit 1 unless the
                                                                     # file holds it verbatim
The module is the one the build generates (build/python/podsim/result_pb2.py).
A column without a meaning below fails: document every new field here.
"""
import argparse
import sys

M = {
 'schema_version':'14 for this schema (13: before the energy and cost columns `serving.energy.*`, `serving.cost.*`, the generation columns `generation.energy_j` to `generation.gco2e_per_m_tokens`, the operation-list columns `op_list.energy.*` and the power model `inputs.topology.chip.power.*`; 12: before the unit breakdown `serving.units.*`, `serving.fused_epilogues` and `inputs.serving.sharding.attention_mapping`; 11: before the TensorCore columns `chip.tensor_cores` to `chip.step_issue_cycles` and `serving.attention_mapping`; 10: before `calibration.ring_step_overhead_ns`, `calibration.hbm_latency_ns` and `calibration.mxu_tile_overhead_cycles`; 9: before `serving.prefill_weight_gathers`; 8: before the simulation columns `simulation.*` and `inputs.run.symmetry`; 7: before the generation columns `generation.*`, `inputs.serving.scenario.output_len`, `inputs.serving.model.max_context_len`, `inputs.run.every_step` and `inputs.run.step_tolerance`; 6: before the fault columns, `inputs.run.vs_healthy` and the `--vs-healthy` slowdown; 5: before `inputs.serving.sharding.weight_gathered_axes`, `serving.attention_layout` and the collective matmul columns; 4: before `inputs.topology.chip.mxu_weight_load_bytes_per_cycle`, the calibration profile columns, `inputs.serving.sharding.pad_heads`, the prefill chunks and `inputs.serving.model.mla`; 3: before `inputs.serving.model.parallel_block`; 2: op-list CSV with `schedule`; 1: first)',
 'podsim_version':'the podsim that wrote the result (not compared)',
 'status':'`ok`, `oom` (does not fit in HBM, not simulated) or `invalid` (inputs could not be loaded or lowered)',
 'reason':'why, for `oom` and `invalid` (the diagnostics, one per line); empty for `ok`',
 'topology.name':'the pod\'s name','topology.file':'the topology file as named (`<embedded:v5e-16x16>` for the default)',
 'topology.sha256':'hex SHA-256 of the topology\'s bytes (filled by the loader; empty when unknown)',
 'topology.overrides':'each `--set PATH=VALUE` applied to the topology, in order',
 'topology.chips':'chips in the pod (all slices)','topology.slices':'slices joined by DCN',
 'dims.name':'per dimension: name','dims.size':'per dimension: chips along it','dims.wraparound':'per dimension: whether it wraps (torus) or not (mesh)',
 'dims.link_bandwidth_gbps':'per dimension: one direction of one link, GB/s','dims.hop_latency_ns':'per dimension: latency of one hop',
 'twists.dim':'per twist: the twisted dimension','twists.shift_dim':'per twist: the dimension its wrap link shifts along','twists.offset':'per twist: by how many chips',
 'topology.failed_links':'failed links in the topology file',
 'topology.dead_chips':'dead chips in the topology file (their links are gone)','topology.degraded_links':'degraded links in the topology file','topology.stragglers':'straggler chips in the topology file',
 'chip.name':'chip name','chip.ici_ports':'ICI ports per chip','chip.hbm_bytes':'HBM capacity per chip','chip.hbm_bandwidth_gbps':'HBM bandwidth per chip',
 'chip.peak_bf16_flops':'bf16 peak, FLOP/s','chip.peak_int8_ops':'int8 peak, op/s','chip.peak_fp8_flops':'fp8 peak, FLOP/s (0: none)',
 'chip.mxu_count':'matrix units per chip','chip.mxu_rows':'matrix unit rows','chip.mxu_columns':'matrix unit columns','chip.mxu_clock_hz':'matrix unit clock','chip.vmem_bytes':'vector memory per chip','chip.mxu_weight_load_bytes_per_cycle':'weights one matrix unit loads per cycle','chip.tensor_cores':'TensorCores per chip (`--compute tensorcore`, docs/tensorcore.md)','chip.vector_lanes':'vector unit lanes per core','chip.vector_sublanes':'vector unit sublanes per core','chip.vector_alus':'fp32 ALUs per vector lane and sublane','chip.transcendentals_per_cycle':'transcendental results per cycle per core','chip.dma_bandwidth_gbps':'HBM to VMEM DMA bandwidth of the chip','chip.dma_latency_ns':'fixed latency of one step of DMA transfers','chip.dma_granule_bytes':'the granule every DMA transfer is rounded up to','chip.step_issue_cycles':'scalar-core cycles to issue one step of a tiled kernel',
 'chip.power.modelled':'the chip has a power model (docs/energy.md); false: no energy is reported','chip.power.idle_watts':'power model: the chip\'s idle power at the operating voltage, W','chip.power.host_watts':'power model: host power per chip, W','chip.power.mxu_bf16_pj_per_flop':'power model: matrix-unit energy per bf16 FLOP at the operating voltage, pJ','chip.power.mxu_int8_pj_per_op':'power model: per int8 op, pJ','chip.power.mxu_fp8_pj_per_flop':'power model: per fp8 FLOP, pJ','chip.power.vector_pj_per_flop':'power model: per vector operation, pJ','chip.power.hbm_pj_per_byte':'power model: per HBM byte, pJ','chip.power.vmem_pj_per_byte':'power model: per VMEM byte (`--compute tensorcore`), pJ','chip.power.ici_pj_per_byte_per_hop':'power model: per byte per ICI hop, pJ','chip.power.dcn_pj_per_byte':'power model: per DCN byte, pJ','chip.power.tdp_watts':'power model: the published maximum power (0: none)','chip.power.clock_factor':'power model: the clock as a fraction of nominal (`chip.power.clock_factor`)','chip.power.voltage':'power model: the core voltage that clock needs, as a fraction of nominal (alpha-power law)','chip.power.source':'power model: where its figures come from',
 'energy.modelled':'the step\'s energy was computed (the chip has a power model)','energy.step_j':'the slice\'s energy over the step, every powered chip and its host, J','energy.j_per_token':'energy per token the step produced, J','energy.tokens_per_j':'tokens per joule','energy.mean_power_w':'the slice\'s mean power over the step, W','energy.peak_power_w':'every chip in its most power-dense class at once (a class mean, not an instantaneous peak), W','energy.powered_chips':'chips drawing power (the slice\'s live chips)',
 'parts.idle_j':'energy by mechanism: chips\' idle power over the step','parts.host_j':'by mechanism: hosts\' power over the step','parts.mxu_j':'by mechanism: matrix-unit operations','parts.vector_j':'by mechanism: vector-unit operations','parts.hbm_j':'by mechanism: HBM bytes','parts.vmem_j':'by mechanism: VMEM bytes (`--compute tensorcore`)','parts.ici_j':'by mechanism: ICI bytes x hops','parts.dcn_j':'by mechanism: DCN bytes',
 'classes.compute_j':'energy by time class: idle power over compute-bound time and its work','classes.memory_j':'by time class: memory-bound','classes.collective_j':'by time class: idle power over exposed collectives, ICI and DCN','classes.idle_j':'by time class: idle power over idle time','classes.host_j':'by time class: the hosts',
 'critical_chip.compute_j':'the critical chip\'s energy by time class: compute-bound','critical_chip.memory_j':'critical chip: memory-bound','critical_chip.collective_j':'critical chip: collectives','critical_chip.idle_j':'critical chip: idle','critical_chip.host_j':'critical chip: its host','energy.critical_chip_j':'the critical chip\'s energy over the step, its host included, J','energy.clock_factor':'the clock as a fraction of nominal','energy.voltage':'the core voltage as a fraction of nominal',
 'generation.energy_j':'generation: the slice\'s energy over the prefill and every decode step (interpolated as the times are), J; 0 without a power model','generation.prefill_energy_j':'generation: the prefill step\'s energy, J','generation.j_per_token':'generation: energy per generated token, J','generation.mean_power_w':'generation: energy over total time, W','generation.usd_per_m_tokens':'generation, `--pricing`: the slice for the whole generation per million generated tokens, $','generation.gco2e_per_m_tokens':'generation, `--pricing`: g CO2e per million generated tokens',
 'op_list.energy.step_j':'operation list: the slice\'s energy over the makespan (every powered chip\'s idle and host power, the compute operations on every chip, every link\'s bytes), J','op_list.energy.mean_power_w':'operation list: that energy over the makespan, W','op_list.energy.peak_power_w':'operation list: every chip running its most power-dense compute operation at once, links averaged, W','op_list.energy.j_per_token':'operation list: 0 (no tokens)','op_list.energy.tokens_per_j':'operation list: 0 (no tokens)',
 'energy.unmodelled_reason':'why there is no energy though the chip has a power model (a figure out of the range podsim represents); empty otherwise','cost.unpriced_reason':'why a step was not priced though `--pricing` was given (the file counts electricity or carbon and the energy is not computed); empty otherwise',
 'cost.priced':'a `--pricing` file priced the step','cost.pricing':'the pricing file\'s name','cost.pricing_date':'when its prices were read','cost.commitment':'`on-demand`, `spot`, `1-year` or `3-year`','cost.usd_per_chip_hour':'the chip\'s price at that commitment','cost.usd_per_m_tokens':'the slice\'s chips (and electricity, where the chip price does not include it) per million tokens, $','cost.usd_per_hour':'the slice per hour of such steps, $','cost.gco2e_per_m_tokens':'the step\'s energy x PUE x carbon intensity per million tokens, g CO2e',
 'calibration.ici_link_efficiency':'calibration: fraction of ICI bandwidth achieved','calibration.dcn_efficiency':'calibration: fraction of DCN bandwidth achieved',
 'calibration.collective_overhead_ns':'calibration: fixed cost per collective','calibration.mxu_efficiency':'calibration: fraction of matrix-unit peak achieved',
 'calibration.hbm_efficiency':'calibration: fraction of HBM bandwidth achieved','calibration.op_overhead_ns':'calibration: fixed cost per compute op','calibration.source':'calibration: where the values come from',
 'calibration.profile':'calibration: the `--calibration` profile that supplied the knobs (empty: the topology\'s own, or ideal)','calibration.profile_file':'calibration: that profile\'s file as named','calibration.profile_sha256':'calibration: hex SHA-256 of that profile\'s bytes','calibration.ring_step_overhead_ns':'calibration: synchronisation cost per step of a collective','calibration.hbm_latency_ns':'calibration: fixed latency of each operation\'s HBM stream','calibration.mxu_tile_overhead_cycles':'calibration: matrix-unit cycles lost per round of weight tiles',
 'calibration.replaced_topology_calibration':'calibration: the profile replaced a calibration the topology file set',
 'dcn.bandwidth_per_chip_gbps':'DCN bandwidth per chip each way (0 with one slice)','dcn.latency_ns':'DCN latency (0 with one slice)',
 'workload.name':'the workload\'s name','workload.file':'the workload file as named','workload.sha256':'hex SHA-256 of the workload\'s bytes (filled by the loader; empty when unknown)',
 'workload.overrides':'each `--set` applied to the workload, in order','workload.form':'`serving` or `op_list`',
 'mesh.name':'mesh axes, in order','mesh.size':'chips along each mesh axis','workload.operations':'operations in an operation list (0 for serving)',
 'run.network':'network model: `analytical`, `flow` or `packet`','run.packet_bytes':'`--packet-bytes` (packet model)','run.switching':'`--switching` (packet model)',
 'run.compute':'compute model: `roofline`, `systolic`, `table` or `tensorcore`','run.op_table':'`--op-table` file, if any','run.fold':'replicas folded (not `--no-fold`)','run.allow_oom':'`--allow-oom` given','run.vs_healthy':'`--vs-healthy` given',
 'run.every_step':'`--every-step` given: a generation simulates every decode step','run.step_tolerance':'`--step-tolerance`: relative midpoint error under which a generation\'s decode steps are interpolated',
 'run.symmetry':'one chip played per class of a translation symmetry where exact (not `--no-symmetry`)',
 'simulation.method':'`symmetric` (one chip played per class of chips a translation of the torus maps onto each other, every collective kept: the results of playing every chip, bit for bit) or `full`','simulation.detail':'the translations and classes, or why the run was played in full','simulation.played_chips':'chips that ran their programs (1 in lock step)',
 'model.name':'model name','model.layers':'layers','model.d_model':'hidden size','model.heads':'attention heads','model.kv_heads':'KV heads','model.head_dim':'head dimension',
 'model.max_context_len':'the longest sequence the model serves (0: not given)',
 'model.ffn_dim':'dense FFN width','model.gated_ffn':'gated (SwiGLU) FFN','model.vocab':'vocabulary','model.tied_embeddings':'embedding and LM head shared','model.parallel_block':'parallel attention+FFN block',
 'mla.kv_lora_rank':'MLA: cached KV latent width d_c (0: no MLA; with MLA kv_heads = heads and head_dim = qk_nope_head_dim + qk_rope_head_dim)','mla.q_lora_rank':'MLA: query latent width','mla.qk_nope_head_dim':'MLA: per-head query/key width without RoPE','mla.qk_rope_head_dim':'MLA: decoupled RoPE query/key width (the shared RoPE key is cached)','mla.v_head_dim':'MLA: per-head value width',
 'moe.experts':'MoE: routed experts (0: dense)','moe.experts_per_token':'MoE: top-k','moe.shared_experts':'MoE: always-on experts','moe.expert_ffn_dim':'MoE: expert FFN width',
 'moe.first_dense_layers':'MoE: leading dense layers','moe.moe_layer_interval':'MoE: every n-th layer after them is MoE',
 'model.weight_dtype':'weight dtype','model.activation_dtype':'activation dtype','model.kv_dtype':'KV cache dtype',
 'scenario.phase':'`prefill`, `decode` or `generation`','scenario.output_len':'generation: tokens generated per sequence (0 for one step)','scenario.batch':'sequences in the step (whole pod)','scenario.prompt_len':'prefill: tokens per sequence','scenario.context_len':'tokens already in the KV cache','scenario.micro_batches':'pipeline micro-batches','scenario.prefill_chunks':'sequential prefill chunks as given; 0: automatic',
 'sharding.tensor_axes':'tensor-parallel mesh axes','sharding.tensor_collective':'`all-reduce` or `reduce-scatter+all-gather`','sharding.weight_gathered':'weights gathered layer by layer',
 'sharding.kv_layout':'`by-heads` or `by-batch`','sharding.expert_axes':'expert-parallel axes','sharding.data_axes':'data-parallel axes','sharding.pipeline_axis':'pipeline axis (empty: none)','sharding.overlap_collectives':'collectives may overlap compute',
 'sharding.attention_mapping':'`--compute tensorcore`: the attention mapping asked, `auto` (the fastest) or forced (`cache-stationary`, `queries-stationary`, `vector-unit`)',
 'sharding.pad_heads':'heads padded to split over the tensor chips','sharding.weight_gathered_axes':'tensor axes the weights are gathered over (empty with `weight_gathered`: all)','sharding.collective_matmul':'`off`, `on` or `auto`: tensor collectives looped with their matmuls',
 'serving.simulated':'false for an `oom` result (memory figures only)','serving.step_time_us':'the step time','serving.compute_us':'critical chip: compute-bound time',
 'serving.memory_us':'critical chip: memory-bound time','serving.collective_exposed_us':'critical chip: exposed collective time','serving.idle_us':'critical chip: idle (the four add up to the step time)',
 'serving.collective_overlapped_us':'collective time hidden under compute','serving.tokens':'tokens the step produces (decode: the batch) or processes (prefill: batch x prompt)',
 'serving.tokens_per_s':'tokens / step time','serving.tokens_per_s_per_chip':'divided by all chips','serving.ttft_us':'prefill: time to first token; 0 for decode','serving.tpot_us':'decode: time per output token; 0 for prefill',
 'serving.mfu':'model FLOPs / (step time x chips x bf16 peak)','serving.hbm_bandwidth_utilisation':'HBM bytes the critical chip moved / (step time x HBM bandwidth)',
 'memory.hbm_used_bytes':'per chip: weights + KV cache + peak activations','memory.hbm_capacity_bytes':'per chip HBM','memory.weight_bytes':'per chip weights','memory.kv_cache_bytes':'per chip KV cache','memory.activation_peak_bytes':'per chip peak activations','memory.fits':'whether it fits',
 'serving.critical_chip':'the chip that finishes last','serving.critical_stage':'its pipeline stage','spread.min_chip_end_us':'earliest chip end','spread.mean_chip_end_us':'mean chip end','spread.max_chip_end_us':'latest chip end (the step time)',
 'spread.simulated_chips':'chips simulated (replica folding)','spread.represented_chips':'chips they stand for','serving.events':'events the kernel executed','serving.prefill_chunks':'sequential chunks the prefill batch ran in (1: one pass)','serving.prefill_chunk_sequences':'sequences per replica in one chunk','serving.prefill_weight_gathers':'weight-gathered: times each layer\'s weights were gathered (1, or the chunks when one gather per layer did not fit); 0: not gathered',
 'serving.collective_matmul':'collective matmul as run: `off`, `on`, `auto: on` or `auto: off` (AUTO simulates both and keeps the faster)','serving.collective_matmul_looped':'tensor all-gathers and reduce-scatters per chip looped with their matmuls','serving.collective_matmul_whole':'those left whole with collective matmul on','serving.collective_matmul_whole_reasons':'why collectives were left whole (`;` between reasons): those `collective_matmul_whole` counts, and the weight all-gathers of a weight-gathered layout, which it does not count','serving.healthy_step_time_us':'with `--vs-healthy` on a pod with faults: the step time with every fault repaired (0 otherwise)','serving.fault_slowdown':'step_time_us over healthy_step_time_us (0 without `--vs-healthy`)',
 'serving.fused_epilogues':'`--compute tensorcore`: elementwise instructions per chip of the critical stage run inside the matmul producing their input (XLA\'s output fusion); 0 otherwise',
 'units.mxu_us':'critical chip: compute + memory time on the matrix units, along each op\'s critical path (streaming, weight loads, fill and drain)',
 'units.vector_us':'critical chip: on the vector unit, where longer than the matrix units',
 'units.issue_us':'critical chip: the scalar core issuing kernel steps (`--compute tensorcore`; 0 otherwise)',
 'units.dma_wait_us':'critical chip: waiting on HBM transfers the units\' work does not cover (the five `units` add up to compute + memory)',
 'units.overhead_us':'critical chip: the per-operation overhead (calibration `op_overhead_ns`)',
 'serving.attention_layout':'how attention splits over the tensor chips: `by-heads`, `by-batch`, or `by-heads over x and y` (2D with too few sequences for the first axis)','serving.attention_mapping':'`--compute tensorcore`: how the attention kernel used the units, `cache-stationary`, `queries-stationary` or `vector-unit` (the fastest; docs/tensorcore.md); empty otherwise',
 'generation.output_len':'generation: tokens generated per sequence (0 for one step: every generation column is 0 or empty)','generation.decode_steps':'output_len - 1',
 'generation.ttft_us':'time to first token: the prefill step (its LM head samples the first token)','generation.tpot_mean_us':'time per output token after the first: (total - TTFT) / decode steps',
 'generation.tpot_first_us':'the first decode step','generation.tpot_last_us':'the last decode step (the largest context)','generation.total_us':'TTFT + every decode step: one request\'s latency',
 'generation.tokens':'batch x output_len','generation.tokens_per_s':'tokens / total','generation.tokens_per_s_per_chip':'divided by all chips','generation.decode_tokens_per_s':'the decode steps alone: batch x decode steps / their time',
 'generation.mfu':'model FLOPs of every step (each decode step at its context) / (total x chips x bf16 peak)',
 'generation.first_decode_context_len':'KV cache tokens before decode step 1 (context_len + prompt_len)','generation.last_decode_context_len':'KV cache tokens before the last decode step',
 'generation.prefill_hbm_used_bytes':'per chip HBM of the prefill step','generation.last_hbm_used_bytes':'per chip HBM of the last decode step (the largest KV cache)','generation.fits':'both fit (so every step does)',
 'generation.steps_mode':'`every step` or `bisection`: how the decode steps were simulated','generation.simulated_decode_steps':'decode steps simulated','generation.simulated_steps':'which: 1-based step numbers, ranges `a-b`, `;` between',
 'generation.step_tolerance':'the bound asked on the midpoint error (0 with `--every-step`)','generation.max_midpoint_error':'the largest relative error of the linear prediction at the midpoints checked',
 'op_list.makespan_us':'first start to last end','op_list.events':'events the kernel executed','op_list.healthy_makespan_us':'with `--vs-healthy` on a pod with faults: the makespan with every fault repaired (0 otherwise)','op_list.fault_slowdown':'makespan_us over healthy_makespan_us (0 without `--vs-healthy`)',
 'operations.name':'the operation\'s name (part of the row\'s key)','operations.kind':'compute: `matmul`, `attention`, ...; collective: `all-gather`, `reduce-scatter`, `all-reduce`, `all-to-all`, `broadcast`, `collective-permute`, `send`',
 'operations.bound':'compute: `compute`, `memory` or `overhead`; collective: `network`','operations.repeat':'runs, back to back','operations.start_us':'first run began','operations.end_us':'last run ended',
 'operations.time_us':'one run: (end - start) / repeat','operations.bytes':'compute: HBM bytes of one run on one chip; collective: V (see below)',
 'collective.axes':'mesh axes (a send has none)','collective.group_size':'chips in one group, N (1 for compute)','collective.algbw_gbps':'V / time (NCCL-tests algorithm bandwidth)',
 'collective.busbw_gbps':'algbw x the NCCL-tests bus factor','collective.link_util_mean':'mean over the links used: bytes / (effective bandwidth x duration)','collective.link_util_max':'max of the same',
 'collective.links_used':'directed links that carried its bytes','collective.transfers':'point-to-point transfers it was lowered into','collective.schedule':'how it ran (docs/collectives.md names the schedules)',
 'compute.flops':'useful FLOPs of one run on one chip; 0 for a collective','compute.hbm_bytes':'HBM bytes of one run on one chip; 0 for a collective','compute.achieved_flops_per_s':'flops / time; 0 for a collective',
}
def meaning(path):
    parts=path.split('.')
    for n in range(len(parts),0,-1):
        k='.'.join(parts[-n:])
        if k in M: return M[k]
    sys.exit(f'result_columns: no meaning for column {path}: add it to M')
def walk(d, prefix, kind, out, rows):
    for f in d.fields:
        o=f.GetOptions()
        if o.Extensions[R.json_only]: continue
        k=o.Extensions[R.csv_kind]
        if k and k!=kind: continue
        name=prefix+f.name
        if o.Extensions[R.csv_rows]: walk(f.message_type, name+'.', kind, rows, rows)
        elif f.message_type is not None: walk(f.message_type, name+'.', kind, out, rows)
        else: out.append(name)
def table():
    cols = {}
    for kind in ('serving', 'op_list'):
        out = []
        rows = []
        walk(R.Result.DESCRIPTOR, '', kind, out, rows)
        cols[kind] = out + rows
    lines = ['| column | rows | meaning |', '|---|---|---|']
    for c in cols['serving'] + [c for c in cols['op_list'] if c not in cols['serving']]:
        kinds = [k for k in ('serving', 'op_list') if c in cols[k]]
        lines.append(f"| `{c}` | {'both' if len(kinds) == 2 else kinds[0]} | {meaning(c)} |")
    return '\n'.join(lines) + '\n'


def main():
    global R
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--module-dir', required=True, help='where podsim/result_pb2.py is')
    p.add_argument('--check', help='a Markdown file that must hold the table verbatim')
    a = p.parse_args()
    sys.path.insert(0, a.module_dir)
    from podsim import result_pb2 as R  # noqa: E402
    t = table()
    if a.check is None:
        sys.stdout.write(t)
        return 0
    with open(a.check, encoding='utf-8') as f:
        if t in f.read():
            return 0
    sys.stderr.write(f'result_columns: {a.check} does not hold the current column table; '
                     'regenerate it with scripts/result_columns.py --module-dir ...\n')
    return 1


if __name__ == '__main__':
    sys.exit(main())
