#include "config/internal/override_applier.h"

#include "config/internal/issue_list.h"
#include "config/internal/override_paths.h"
#include "config/internal/override_value.h"

namespace podsim::config::internal {
namespace {

namespace pb = google::protobuf;

// How many nearest valid paths a message suggests.
constexpr size_t kSuggestions = 3;

// Why one override could not be applied.
struct Failure {
  std::string message;
  bool suggest = false;  // append the nearest valid paths
};

// The names of a message type's fields, for "podsim.Torus has dims, twists".
std::string field_names(const pb::Descriptor& d) {
  std::vector<std::string> names;
  for (int i = 0; i < d.field_count(); ++i)
    names.push_back(d.field(i)->name());
  return join(names);
}

std::string element_count(int n) {
  return plural(static_cast<uint64_t>(n), "element");
}

class Applier {
 public:
  Applier(std::string_view root, const std::string& source, pb::Message& message)
      : root_(root), source_(source), message_(message) {}

  // The root the next override's paths are reported under.
  void set_root(std::string_view root) { root_ = root; }

  // Applies one override with its root removed; nullopt on success.
  std::optional<Failure> apply(const Override& o, std::string_view path_text,
                               AppliedOverride& applied) {
    std::string error;
    const std::optional<FieldPath> path = parse_field_path(path_text, error);
    if (!path)
      return Failure{"not a field path: " + error, true};
    const auto& segments = path->segments();
    pb::Message* m = &message_;
    FieldPath done;
    for (size_t k = 0; k < segments.size(); ++k) {
      const FieldPath::Segment& s = segments[k];
      const bool last = k + 1 == segments.size();
      const pb::Descriptor& d = *m->GetDescriptor();
      const pb::FieldDescriptor* f = d.FindFieldByName(s.name);
      if (f == nullptr) {
        return Failure{
            "unknown field \"" + s.name + "\": " + d.full_name() + " has " + field_names(d), true};
      }
      const pb::Reflection& r = *m->GetReflection();
      const std::string here = rooted(done(s.name));
      const bool is_message = f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
      if (s.index >= 0 && !f->is_repeated())
        return Failure{here + " is not a list: no [" + std::to_string(s.index) + "]", true};
      // Naming a list at its length appends an element there (every field
      // at its default, as `dims { }` in a file), so a what-if can add a
      // torus dimension, a mesh axis or a fault from the command line, and
      // further overrides of that index set its fields in order
      // (--set topology.torus.dims[2].size=4 --set
      // topology.torus.dims[2].link_bandwidth_gbps=50).
      const int size = f->is_repeated() ? r.FieldSize(*m, f) : 0;
      if (s.index >= 0 && s.index == size && is_message) {
        r.AddMessage(m, f);
        if (!applied.created)
          applied.created = done(s.name, s.index);
      }
      // A scalar list's element at its length is appended by set_value().
      if (s.index >= 0 && s.index >= (is_message ? r.FieldSize(*m, f) : size + 1)) {
        return Failure{"index " + std::to_string(s.index) + " is out of range: " + here + " has " +
                           element_count(size) + " in " + source_ + " (index " +
                           std::to_string(size) + " appends one)",
                       true};
      }
      if (!is_message && !last) {
        return Failure{here + " is a " + type_name(*f) + ", not a message: nothing is under it",
                       true};
      }
      if (is_message && f->is_repeated() && s.index < 0) {
        const pb::Descriptor& element = *f->message_type();
        return Failure{here + " is a list of " + element.full_name() + ": name an element, as in " +
                           here + "[0]" +
                           (element.field_count() > 0 ? "." + element.field(0)->name() : ""),
                       true};
      }
      if (is_message && last) {
        return Failure{
            here + " is a message (" + f->message_type()->full_name() + "): name one of its fields",
            true};
      }
      if (is_message) {
        if (f->is_repeated()) {
          m = r.MutableRepeatedMessage(m, f, s.index);
        } else {
          if (!applied.created && !r.HasField(*m, f))
            applied.created = done(s.name);
          m = r.MutableMessage(m, f);
        }
        done = done(s.name, s.index);
        continue;
      }
      // The last segment: a value.
      applied.target = done(s.name, s.index);
      if (f->is_repeated() && s.index < 0) {
        applied.whole_list = true;
        if (o.value.empty() || o.value.front() != '[') {
          return Failure{here + " is a list of " + type_name(*f) + ": write " + here +
                         "=[a, b, ...] to replace it, or " + here + "[i]=v to set one element"};
        }
        error = set_list(*m, *f, o.value);
      } else {
        error = set_value(*m, *f, s.index, o.value);
      }
      if (!error.empty())
        return Failure{error};
    }
    return std::nullopt;
  }

  std::string suggestions(std::string_view path_text) const {
    std::vector<std::string> candidates = overridable_paths(message_);
    for (std::string& c : candidates)
      c = std::string(root_) + "." + c;
    const std::vector<std::string> near =
        nearest(std::string(root_) + "." + std::string(path_text), candidates, kSuggestions);
    return near.empty() ? std::string() : "; nearest valid paths: " + join(near);
  }

 private:
  std::string rooted(const FieldPath& path) const {
    return std::string(root_) + "." + path.to_string();
  }

  std::string_view root_;
  const std::string& source_;
  pb::Message& message_;
};

// True when the segments of `prefix` open `path`, with equal indexes.
bool opens(const FieldPath& prefix, const FieldPath& path) {
  const auto& p = prefix.segments();
  const auto& s = path.segments();
  if (p.size() > s.size())
    return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].name != s[i].name || p[i].index != s[i].index)
      return false;
  }
  return true;
}

// `path` without its last segment.
FieldPath parent_of(const FieldPath& path) {
  FieldPath parent;
  const auto& segments = path.segments();
  for (size_t i = 0; i + 1 < segments.size(); ++i)
    parent = parent(segments[i].name, segments[i].index);
  return parent;
}

bool sets(const AppliedOverride& o, const FieldPath& path) {
  const auto& t = o.target.segments();
  const auto& s = path.segments();
  if (t.empty() || s.size() < t.size())
    return false;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool last = i + 1 == t.size();
    if (t[i].name != s[i].name)
      return false;
    // A list set whole covers each element; one element set covers it and
    // the list as a whole.
    if (t[i].index != s[i].index && !(last && (o.whole_list || s[i].index < 0)))
      return false;
  }
  return true;
}

// The root of `roots` that `o`'s path starts with (followed by '.'), if any.
std::optional<std::string_view> root_of(const Override& o, const OverrideRoots& roots) {
  for (const std::string& root : roots) {
    if (o.path.size() > root.size() && o.path.starts_with(root) && o.path[root.size()] == '.')
      return std::string_view(root);
  }
  return std::nullopt;
}

}  // namespace

std::vector<AppliedOverride> apply_overrides(const Overrides& overrides, std::string_view root,
                                             const std::string& source, pb::Message& message) {
  return apply_overrides(overrides, OverrideRoots{std::string(root)}, source, message);
}

std::vector<AppliedOverride> apply_overrides(const Overrides& overrides, const OverrideRoots& roots,
                                             const std::string& source, pb::Message& message) {
  Applier applier("", source, message);
  std::vector<AppliedOverride> applied;
  std::vector<Diagnostic> failures;
  for (const Override& o : overrides) {
    const std::optional<std::string_view> root = root_of(o, roots);
    if (!root)
      continue;
    applier.set_root(*root);
    const std::string_view path = std::string_view(o.path).substr(root->size() + 1);
    AppliedOverride a;
    a.text = to_string(o);
    if (const std::optional<Failure> failure = applier.apply(o, path, a)) {
      Diagnostic d;
      d.file = "--set";
      d.field = o.path;
      d.message = failure->message + (failure->suggest ? applier.suggestions(path) : "");
      failures.push_back(std::move(d));
      continue;
    }
    applied.push_back(std::move(a));
  }
  if (!failures.empty())
    throw InputError(std::move(failures));
  return applied;
}

std::vector<std::string> override_texts(const Overrides& overrides, std::string_view root) {
  return override_texts(overrides, OverrideRoots{std::string(root)});
}

std::vector<std::string> override_texts(const Overrides& overrides, const OverrideRoots& roots) {
  std::vector<std::string> out;
  for (const Override& o : overrides) {
    if (root_of(o, roots))
      out.push_back(to_string(o));
  }
  return out;
}

OverrideNote override_note(const std::vector<AppliedOverride>& applied, const FieldPath& path) {
  for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
    if (sets(*it, path))
      return {" (set by --set " + it->text + ")", true};
    if (it->created && opens(*it->created, path))
      return {" (in " + it->created->to_string() + ", which --set " + it->text + " created)", true};
  }
  std::vector<std::string> siblings;
  for (const AppliedOverride& o : applied) {
    if (o.target.segments().size() > 1 && opens(parent_of(o.target), path))
      siblings.push_back("--set " + o.text);
  }
  if (siblings.empty())
    return {};
  return {" (with " + join(siblings) + ")", false};
}

}  // namespace podsim::config::internal
