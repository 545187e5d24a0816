#include "device_selector.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <tuple>
#include <vector>

namespace sim::sched {
namespace {

using model::CelNode;
using Kind = CelNode::Kind;

struct Value {
  enum class Type { BOOL, INT, STRING, QUANTITY, VERSION, LIST, ERROR } type = Type::ERROR;
  bool boolean = false;
  std::int64_t integer = 0;  // INT, and QUANTITY in milli-units
  std::string text;          // STRING, VERSION, ERROR
  std::vector<Value> list;
};

Value boolean(bool b) { return {Value::Type::BOOL, b, 0, {}, {}}; }
Value integer(std::int64_t i) { return {Value::Type::INT, false, i, {}, {}}; }
Value error(std::string message) { return {Value::Type::ERROR, false, 0, std::move(message), {}}; }
Value no_overload(const std::string& what) { return error("no such overload: " + what); }

// Semantic versions: major.minor.patch, then a pre-release sorts before the release.
std::optional<std::tuple<long, long, long, bool, std::string>> parse_semver(
    const std::string& text) {
  const std::string core = text.substr(0, text.find('+'));
  const std::size_t dash = core.find('-');
  const std::string numbers = core.substr(0, dash);
  long parts[3] = {0, 0, 0};
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const std::size_t end = i < 2 ? numbers.find('.', start) : numbers.size();
    if (end == std::string::npos || end == start) return std::nullopt;
    const std::string digits = numbers.substr(start, end - start);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    parts[i] = std::strtol(digits.c_str(), nullptr, 10);
    start = end + 1;
  }
  const std::string pre = dash == std::string::npos ? "" : core.substr(dash + 1);
  return std::tuple{parts[0], parts[1], parts[2], pre.empty(), pre};
}

std::optional<int> compare(const Value& a, const Value& b) {
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (a.type != b.type) return std::nullopt;
  switch (a.type) {
    case Value::Type::INT:
    case Value::Type::QUANTITY:
      return sign(a.integer, b.integer);
    case Value::Type::STRING:
      return sign(a.text, b.text);
    case Value::Type::BOOL:
      return sign(a.boolean, b.boolean);
    case Value::Type::VERSION: {
      const auto va = parse_semver(a.text), vb = parse_semver(b.text);
      if (!va || !vb) return std::nullopt;
      return sign(*va, *vb);
    }
    default:
      return std::nullopt;
  }
}

// CEL's heterogeneous equality: values of different types are unequal, not an error.
bool equal(const Value& a, const Value& b) {
  if (a.type == Value::Type::LIST && b.type == Value::Type::LIST) {
    return a.list.size() == b.list.size() &&
           std::equal(a.list.begin(), a.list.end(), b.list.begin(), equal);
  }
  const std::optional<int> c = compare(a, b);
  return c && *c == 0;
}

class Evaluator {
 public:
  Evaluator(const std::string& driver, const model::SliceDevice& device)
      : driver_(driver), device_(device) {}

  Value eval(const CelNode& n) const {
    switch (n.kind) {
      case Kind::BOOL:
        return boolean(n.boolean);
      case Kind::INT:
        return integer(n.integer);
      case Kind::STRING:
        return {Value::Type::STRING, false, 0, n.text, {}};
      case Kind::QUANTITY:
        return {Value::Type::QUANTITY, false, n.integer, {}, {}};
      case Kind::VERSION:
        return {Value::Type::VERSION, false, 0, n.text, {}};
      case Kind::LIST: {
        Value list{Value::Type::LIST, false, 0, {}, {}};
        for (const CelNode& item : n.args) {
          Value v = eval(item);
          if (v.type == Value::Type::ERROR) return v;
          list.list.push_back(std::move(v));
        }
        return list;
      }
      case Kind::DRIVER:
        return {Value::Type::STRING, false, 0, driver_, {}};
      case Kind::ATTRIBUTE:
        return attribute(n.text);
      case Kind::CAPACITY: {
        auto it = device_.capacity.find(n.text);
        if (it == device_.capacity.end())
          return error("no such key: " + n.text.substr(n.text.rfind('/') + 1));
        return {Value::Type::QUANTITY, false, it->second, {}, {}};
      }
      case Kind::HAS: {
        const CelNode& field = n.args.front();
        return boolean(field.kind == Kind::ATTRIBUTE ? device_.attributes.contains(field.text)
                                                     : device_.capacity.contains(field.text));
      }
      case Kind::NOT: {
        const Value v = eval(n.args.front());
        if (v.type == Value::Type::ERROR) return v;
        return v.type == Value::Type::BOOL ? boolean(!v.boolean) : no_overload("!");
      }
      case Kind::AND:
      case Kind::OR:
        return logical(n, n.kind == Kind::OR);
      case Kind::EQ:
      case Kind::NE:
      case Kind::LT:
      case Kind::LE:
      case Kind::GT:
      case Kind::GE:
      case Kind::IN:
        return relation(n);
      case Kind::METHOD:
        return method(n);
    }
    return error("unknown expression");
  }

 private:
  Value attribute(const std::string& key) const {
    auto it = device_.attributes.find(key);
    if (it == device_.attributes.end())
      return error("no such key: " + key.substr(key.rfind('/') + 1));
    const model::DeviceAttribute& a = it->second;
    switch (a.kind) {
      case model::DeviceAttribute::Kind::INT:
        return integer(a.integer);
      case model::DeviceAttribute::Kind::BOOL:
        return boolean(a.boolean);
      case model::DeviceAttribute::Kind::STRING:
        return {Value::Type::STRING, false, 0, a.text, {}};
      case model::DeviceAttribute::Kind::VERSION:
        return {Value::Type::VERSION, false, 0, a.text, {}};
    }
    return error("bad attribute");
  }

  // `&&` is false if either side is false and `||` true if either is true, whatever the other.
  Value logical(const CelNode& n, bool is_or) const {
    const Value a = eval(n.args[0]);
    if (a.type == Value::Type::BOOL && a.boolean == is_or) return a;
    const Value b = eval(n.args[1]);
    if (b.type == Value::Type::BOOL && b.boolean == is_or) return b;
    if (a.type == Value::Type::ERROR) return a;
    if (b.type == Value::Type::ERROR) return b;
    if (a.type != Value::Type::BOOL || b.type != Value::Type::BOOL)
      return no_overload(is_or ? "||" : "&&");
    return boolean(!is_or);
  }

  Value relation(const CelNode& n) const {
    const Value a = eval(n.args[0]);
    if (a.type == Value::Type::ERROR) return a;
    const Value b = eval(n.args[1]);
    if (b.type == Value::Type::ERROR) return b;
    switch (n.kind) {
      case Kind::EQ:
        return boolean(equal(a, b));
      case Kind::NE:
        return boolean(!equal(a, b));
      case Kind::IN: {
        if (b.type != Value::Type::LIST) return no_overload("in");
        return boolean(
            std::any_of(b.list.begin(), b.list.end(), [&](const Value& x) { return equal(a, x); }));
      }
      default:
        break;
    }
    // Ordering: ints and strings only (quantities and versions compare through their methods).
    if (a.type != b.type || (a.type != Value::Type::INT && a.type != Value::Type::STRING))
      return no_overload("ordering");
    const int c = *compare(a, b);
    switch (n.kind) {
      case Kind::LT:
        return boolean(c < 0);
      case Kind::LE:
        return boolean(c <= 0);
      case Kind::GT:
        return boolean(c > 0);
      default:
        return boolean(c >= 0);
    }
  }

  Value method(const CelNode& n) const {
    const Value target = eval(n.args[0]);
    if (target.type == Value::Type::ERROR) return target;
    std::vector<Value> args;
    for (std::size_t i = 1; i < n.args.size(); ++i) {
      args.push_back(eval(n.args[i]));
      if (args.back().type == Value::Type::ERROR) return args.back();
    }
    const std::string& name = n.text;
    if (name == "asInteger") {
      if (target.type != Value::Type::QUANTITY || !args.empty()) return no_overload(name);
      if (target.integer % 1000 != 0)
        return error("cannot convert quantity to integer: it has a fraction");
      return integer(target.integer / 1000);
    }
    if (args.size() != 1) return no_overload(name);
    const Value& arg = args.front();
    if (name == "startsWith" || name == "endsWith" || name == "contains") {
      if (target.type != Value::Type::STRING || arg.type != Value::Type::STRING)
        return no_overload(name);
      const std::string& s = target.text;
      const std::string& x = arg.text;
      if (name == "contains") return boolean(s.find(x) != std::string::npos);
      if (name == "startsWith") return boolean(s.rfind(x, 0) == 0);
      return boolean(s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0);
    }
    // compareTo, isGreaterThan, isLessThan: quantities with quantities, versions with versions.
    if (target.type != arg.type ||
        (target.type != Value::Type::QUANTITY && target.type != Value::Type::VERSION)) {
      return no_overload(name);
    }
    const std::optional<int> c = compare(target, arg);
    if (!c) return error("invalid semantic version");
    if (name == "compareTo") return integer(*c);
    return boolean(name == "isGreaterThan" ? *c > 0 : *c < 0);
  }

  const std::string& driver_;
  const model::SliceDevice& device_;
};

}  // namespace

SelectorOutcome evaluate(const model::DeviceSelector& selector, const std::string& driver,
                         const model::SliceDevice& device) {
  const Value v = Evaluator(driver, device).eval(selector.root);
  if (v.type == Value::Type::ERROR) return {false, v.text};
  if (v.type != Value::Type::BOOL) return {false, "CEL result is not a bool"};
  return {v.boolean, {}};
}

}  // namespace sim::sched
