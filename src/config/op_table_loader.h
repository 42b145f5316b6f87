// Loading measured-operation tables (--op-table FILE, a CSV) into an
// OpTableSpec (config/op_table_spec.h).
//
// The grammar, every rule and an example are in docs/inputs.md, "Operation
// tables". In short:
//
//   # comment lines and blank lines are skipped anywhere
//   kind,shape,dtype,time_us
//   matmul,m=8;k=8192;n=8192,bf16,172.5
//   matmul,batch=4;m=128;k=4096;n=4096,bf16/int8,60
//   copy,bytes=1048576,bf16,2.1
//
// Every function throws InputError listing every problem found, each with the
// file, the line, the 1-based column where the offending cell (or shape
// entry) starts, and the column's name as the field ("shape", "time_us").
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/op_table_spec.h"

namespace podsim::config {

// Reads and parses a table file; source_file and diagnostics name it as
// `path` spells it.
OpTableSpec load_op_table_file(const std::filesystem::path& path);

// Parses table text; `source_name` names it in diagnostics and becomes
// OpTableSpec::source_file. O(rows x dims) time plus O(rows log rows) for the
// duplicate check.
OpTableSpec parse_op_table(std::string_view text, std::string source_name);

}  // namespace podsim::config
