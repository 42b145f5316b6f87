// Unsigned integer options read as text. Boost.Program_options parses "-5"
// into an unsigned type by wrapping it (to 2^64 - 5 for uint64_t), so an
// option of an unsigned type would take a negative number as a huge one;
// these are declared as strings and parsed here, refusing a sign, anything
// but decimal digits and values past the option's maximum (UsageError,
// exit 2), as `--set` refuses negatives for unsigned fields.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>

namespace podsim::cli {

// The value of option `name` (without "--"), which must be present (given
// or defaulted): decimal digits only, at most `max`. Throws UsageError.
uint64_t unsigned_option(const boost::program_options::variables_map& vm, const std::string& name,
                         uint64_t max);

}  // namespace podsim::cli
