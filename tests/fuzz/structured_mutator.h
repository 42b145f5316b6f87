// A structure-aware mutation for the fuzz targets whose input is Protobuf
// text (topology_fuzzer, workload_fuzzer): parse the input as the target's
// message, set a field chosen through the descriptors (reflection) to a
// boundary value — 0, 1, 2, 2^32, 2^63, 2^64-1 and their signed and 32-bit
// neighbours for integers; 0, 1e-300, 1e300, NaN, infinities for floats;
// undefined numbers for enums; another name of the message for strings — or
// add, duplicate, remove or clear a field, and print it back as text.
// Plain byte mutation (LLVMFuzzerMutate) finds syntax errors quickly but
// reaches a value like 2^64-1 in a deeply placed field only by luck; this is
// the mutation that found issue 12's overflows by hand.
//
// Byte mutation is still used: for an input that does not parse, for one
// mutation in four, and when the printed text would not fit in max_size.
#pragma once

#include <google/protobuf/message.h>

#include <cstddef>
#include <cstdint>

namespace podsim::fuzz {

// libFuzzer's LLVMFuzzerCustomMutator, with `prototype` naming the message
// type the input holds (its contents are not used). Deterministic for a
// given seed, as libFuzzer requires.
size_t mutate_text_proto(const google::protobuf::Message& prototype, uint8_t* data, size_t size,
                         size_t max_size, unsigned int seed);

}  // namespace podsim::fuzz

// Provided by libFuzzer.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);
