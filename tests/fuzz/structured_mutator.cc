#include "structured_mutator.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace podsim::fuzz {
namespace {

namespace pb = google::protobuf;
using Rng = std::mt19937_64;

constexpr uint64_t kU64Values[] = {0,
                                   1,
                                   2,
                                   3,
                                   (uint64_t{1} << 32) - 1,
                                   uint64_t{1} << 32,
                                   (uint64_t{1} << 32) + 1,
                                   uint64_t{1} << 48,
                                   uint64_t{1} << 56,
                                   (uint64_t{1} << 63) - 1,
                                   uint64_t{1} << 63,
                                   std::numeric_limits<uint64_t>::max() - 1,
                                   std::numeric_limits<uint64_t>::max()};
constexpr uint32_t kU32Values[] = {0,
                                   1,
                                   2,
                                   3,
                                   16,
                                   100,
                                   1u << 16,
                                   1u << 24,
                                   (1u << 31) - 1,
                                   1u << 31,
                                   std::numeric_limits<uint32_t>::max()};
constexpr int64_t kI64Values[] = {0,
                                  1,
                                  -1,
                                  2,
                                  int64_t{1} << 32,
                                  std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min()};
constexpr int32_t kI32Values[] = {
    0, 1, -1, 2, -2, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()};
constexpr double kDoubleValues[] = {0.0,
                                    1.0,
                                    2.0,
                                    -1.0,
                                    0.5,
                                    1e-300,
                                    1e300,
                                    4294967296.0,
                                    9.223372036854775808e18,
                                    1.8446744073709551615e19,
                                    std::numeric_limits<double>::denorm_min(),
                                    std::numeric_limits<double>::max(),
                                    std::numeric_limits<double>::quiet_NaN(),
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity()};

template <typename T, size_t N>
T pick(Rng& rng, const T (&values)[N]) {
  return values[std::uniform_int_distribution<size_t>(0, N - 1)(rng)];
}

// A field of some message in the tree, set or not.
struct Site {
  pb::Message* message;
  const pb::FieldDescriptor* field;
};

// Every field of every message reachable from `m` (set submessages only,
// so the walk ends), and the strings present, for renaming.
void collect(pb::Message& m, std::vector<Site>& sites, std::vector<std::string>& strings,
             int depth) {
  const pb::Descriptor* d = m.GetDescriptor();
  const pb::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const pb::FieldDescriptor* f = d->field(i);
    sites.push_back({&m, f});
    if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
      if (f->is_repeated()) {
        for (int j = 0; j < r->FieldSize(m, f); ++j) {
          strings.push_back(r->GetRepeatedString(m, f, j));
        }
      } else if (r->HasField(m, f) || !r->GetString(m, f).empty()) {
        strings.push_back(r->GetString(m, f));
      }
    }
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE || depth > 40) {
      continue;
    }
    if (f->is_repeated()) {
      for (int j = 0; j < r->FieldSize(m, f); ++j) {
        collect(*r->MutableRepeatedMessage(&m, f, j), sites, strings, depth + 1);
      }
    } else if (r->HasField(m, f)) {
      collect(*r->MutableMessage(&m, f), sites, strings, depth + 1);
    }
  }
}

std::string pick_string(Rng& rng, const std::vector<std::string>& strings) {
  static const char* const kNames[] = {"", "x", "y", "z", "data", "model", "a", "x,y"};
  if (!strings.empty() && rng() % 2 == 0) {
    return strings[rng() % strings.size()];
  }
  return pick(rng, kNames);
}

// Sets element `index` of a repeated field (or the field, index -1) of a
// scalar type to a boundary value.
void set_scalar(Rng& rng, pb::Message& m, const pb::FieldDescriptor* f, int index,
                const std::vector<std::string>& strings) {
  const pb::Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32: {
      const int32_t v = pick(rng, kI32Values);
      rep ? r->SetRepeatedInt32(&m, f, index, v) : r->SetInt32(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_INT64: {
      const int64_t v = pick(rng, kI64Values);
      rep ? r->SetRepeatedInt64(&m, f, index, v) : r->SetInt64(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT32: {
      const uint32_t v = pick(rng, kU32Values);
      rep ? r->SetRepeatedUInt32(&m, f, index, v) : r->SetUInt32(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      const uint64_t v = pick(rng, kU64Values);
      rep ? r->SetRepeatedUInt64(&m, f, index, v) : r->SetUInt64(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: {
      const double v = pick(rng, kDoubleValues);
      rep ? r->SetRepeatedDouble(&m, f, index, v) : r->SetDouble(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_FLOAT: {
      const auto v = static_cast<float>(pick(rng, kDoubleValues));
      rep ? r->SetRepeatedFloat(&m, f, index, v) : r->SetFloat(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_BOOL: {
      const bool v = rng() % 2 == 0;
      rep ? r->SetRepeatedBool(&m, f, index, v) : r->SetBool(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      // A defined value, or (the schema is proto3: enums are open) a number
      // no value has.
      const pb::EnumDescriptor* e = f->enum_type();
      static constexpr int kUndefined[] = {-1, 99, std::numeric_limits<int32_t>::max(),
                                           std::numeric_limits<int32_t>::min()};
      const int v = rng() % 4 != 0 ? e->value(static_cast<int>(rng() % e->value_count()))->number()
                                   : pick(rng, kUndefined);
      if (e->FindValueByNumber(v) == nullptr &&
          e->file()->syntax() != pb::FileDescriptor::SYNTAX_PROTO3) {
        break;
      }
      rep ? r->SetRepeatedEnumValue(&m, f, index, v) : r->SetEnumValue(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      const std::string v = pick_string(rng, strings);
      rep ? r->SetRepeatedString(&m, f, index, v) : r->SetString(&m, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
}

// One structural or value change at a random site; false when nothing changed.
bool mutate_message(Rng& rng, pb::Message& root) {
  std::vector<Site> sites;
  std::vector<std::string> strings;
  collect(root, sites, strings, 0);
  if (sites.empty()) {
    return false;
  }
  const Site s = sites[rng() % sites.size()];
  pb::Message& m = *s.message;
  const pb::FieldDescriptor* f = s.field;
  const pb::Reflection* r = m.GetReflection();
  const bool is_message = f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
  if (f->is_repeated()) {
    const int n = r->FieldSize(m, f);
    const unsigned action = rng() % 8;
    if (n > 0 && action == 0) {  // remove one element
      r->SwapElements(&m, f, static_cast<int>(rng() % n), n - 1);
      r->RemoveLast(&m, f);
      return true;
    }
    if (n > 0 && action == 1) {  // reorder
      r->SwapElements(&m, f, static_cast<int>(rng() % n), static_cast<int>(rng() % n));
      return true;
    }
    if (n > 0 && action <= 3) {  // duplicate an element at the end
      const int from = static_cast<int>(rng() % n);
      if (is_message) {
        std::unique_ptr<pb::Message> copy(r->GetRepeatedMessage(m, f, from).New());
        copy->CopyFrom(r->GetRepeatedMessage(m, f, from));
        r->AddAllocatedMessage(&m, f, copy.release());
      } else {
        switch (f->cpp_type()) {
          case pb::FieldDescriptor::CPPTYPE_UINT32:
            r->AddUInt32(&m, f, r->GetRepeatedUInt32(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_UINT64:
            r->AddUInt64(&m, f, r->GetRepeatedUInt64(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_INT32:
            r->AddInt32(&m, f, r->GetRepeatedInt32(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_INT64:
            r->AddInt64(&m, f, r->GetRepeatedInt64(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_DOUBLE:
            r->AddDouble(&m, f, r->GetRepeatedDouble(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_FLOAT:
            r->AddFloat(&m, f, r->GetRepeatedFloat(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_BOOL:
            r->AddBool(&m, f, r->GetRepeatedBool(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_ENUM:
            r->AddEnumValue(&m, f, r->GetRepeatedEnumValue(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_STRING:
            r->AddString(&m, f, r->GetRepeatedString(m, f, from));
            break;
          case pb::FieldDescriptor::CPPTYPE_MESSAGE:
            break;
        }
      }
      return true;
    }
    if (is_message) {
      r->AddMessage(&m, f);  // a new, empty element
      return true;
    }
    if (n > 0 && action <= 6) {
      set_scalar(rng, m, f, static_cast<int>(rng() % n), strings);
      return true;
    }
    // Append a boundary value: add a default element and set it.
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_UINT32:
        r->AddUInt32(&m, f, 0);
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT64:
        r->AddUInt64(&m, f, 0);
        break;
      case pb::FieldDescriptor::CPPTYPE_INT32:
        r->AddInt32(&m, f, 0);
        break;
      case pb::FieldDescriptor::CPPTYPE_INT64:
        r->AddInt64(&m, f, 0);
        break;
      case pb::FieldDescriptor::CPPTYPE_DOUBLE:
        r->AddDouble(&m, f, 0);
        break;
      case pb::FieldDescriptor::CPPTYPE_FLOAT:
        r->AddFloat(&m, f, 0);
        break;
      case pb::FieldDescriptor::CPPTYPE_BOOL:
        r->AddBool(&m, f, false);
        break;
      case pb::FieldDescriptor::CPPTYPE_ENUM:
        r->AddEnumValue(&m, f, 0);
        break;
      case pb::FieldDescriptor::CPPTYPE_STRING:
        r->AddString(&m, f, "");
        break;
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        break;
    }
    set_scalar(rng, m, f, r->FieldSize(m, f) - 1, strings);
    return true;
  }
  if (is_message) {
    if (r->HasField(m, f) && rng() % 3 == 0) {
      r->ClearField(&m, f);
    } else {
      r->MutableMessage(&m, f);  // present (and empty, if it was not)
    }
    return true;
  }
  if (r->HasField(m, f) && rng() % 8 == 0) {
    r->ClearField(&m, f);
    return true;
  }
  set_scalar(rng, m, f, -1, strings);
  return true;
}

size_t byte_mutate(uint8_t* data, size_t size, size_t max_size) {
  return LLVMFuzzerMutate(data, size, max_size);
}

}  // namespace

size_t mutate_text_proto(const pb::Message& prototype, uint8_t* data, size_t size, size_t max_size,
                         unsigned int seed) {
  Rng rng(seed);
  if (rng() % 4 == 0) {
    return byte_mutate(data, size, max_size);
  }
  std::unique_ptr<pb::Message> message(prototype.New());
  pb::TextFormat::Parser parser;
  parser.AllowPartialMessage(true);
  // Silence: a seed that does not parse is common and not worth a line.
  class Quiet : public pb::io::ErrorCollector {
    void AddError(int, pb::io::ColumnNumber, const std::string&) override {}
  } quiet;
  parser.RecordErrorsTo(&quiet);
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!parser.ParseFromString(text, message.get())) {
    return byte_mutate(data, size, max_size);
  }
  // A few changes at once reach combinations (two fields at their limits).
  const unsigned changes = 1 + static_cast<unsigned>(rng() % 3);
  bool changed = false;
  for (unsigned i = 0; i < changes; ++i) {
    changed = mutate_message(rng, *message) || changed;
  }
  if (!changed) {
    return byte_mutate(data, size, max_size);
  }
  pb::TextFormat::Printer printer;
  printer.SetSingleLineMode(rng() % 2 == 0);
  std::string out;
  if (!printer.PrintToString(*message, &out) || out.size() > max_size) {
    return byte_mutate(data, size, max_size);
  }
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace podsim::fuzz
