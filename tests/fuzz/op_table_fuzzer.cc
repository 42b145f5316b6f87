// The measured-operation table (--op-table FILE, a CSV): parsing and
// validation, then the `table` compute model timing one operation of every
// kind on a v5e 2x2 from the table (a hit, an interpolation between rows or
// a fallback to the roofline), as `podsim run --compute table` does.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "config/diagnostics.h"
#include "config/op_table_loader.h"
#include "config/workload_loader.h"
#include "fuzz_support.h"
#include "study/evaluate.h"

namespace {

// One operation of each kind the table can time, the sizes near the rows
// of the seeds (docs/inputs.md's example and the tests').
constexpr const char* kWorkload = R"pb(
  name: "every-kind"
  mesh {
    axes { name: "x" dims: "x" }
    axes { name: "y" dims: "y" }
  }
  operations {
    name: "mm"
    compute { matmul { m: 16 k: 8192 n: 8192 } }
  }
  operations {
    name: "mm8"
    compute { matmul { batch: 4 m: 128 k: 4096 n: 4096 weight_dtype: INT8 } }
  }
  operations {
    name: "prefill"
    compute {
      attention {
        phase: PREFILL
        batch: 2
        q_len: 512
        kv_len: 512
        heads: 32
        kv_heads: 8
        head_dim: 128
      }
    }
  }
  operations {
    name: "decode"
    compute {
      attention { phase: DECODE batch: 8 q_len: 1 kv_len: 3000 heads: 32 kv_heads: 8 head_dim: 128 }
    }
  }
  operations {
    name: "ew"
    compute { elementwise { elements: 1048576 bytes_in: 2097152 bytes_out: 2097152 } }
  }
  operations {
    name: "rms"
    compute { norm { rows: 256 width: 8192 } }
  }
  operations {
    name: "ln"
    compute { norm { kind: LAYER_NORM rows: 100 width: 4096 } }
  }
  operations {
    name: "emb"
    compute { embedding { tokens: 64 width: 8192 vocab: 128256 } }
  }
  operations {
    name: "copy"
    compute { copy { bytes: 1000000 } }
  }
  operations {
    name: "red"
    compute { reduction { elements: 65536 outputs: 16 } }
  }
)pb";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podsim;
  std::optional<config::OpTableSpec> table;
  try {
    table = config::parse_op_table(fuzz::as_text(data, size), "fuzz.csv");
  } catch (const config::InputError&) {
    return 0;
  }
  static const topo::Pod& pod = *fuzz::small_pods().front();
  static const config::WorkloadSpec workload =
      config::parse_workload_text(kWorkload, "every-kind.textproto", pod.spec());
  study::RunOptions options;
  options.network.model = net::Model::kAnalytical;
  options.compute = chip::ComputeModelKind::kTable;
  options.op_table = std::move(table);
  const study::Evaluation ev = study::evaluate_in_detail(pod, workload, options);
  (void)ev;
  return 0;
}
