#pragma once
// A CEL device selector (resource.k8s.io DeviceSelector.cel.expression) as a tree, in the subset
// kaisim evaluates: `device.driver`, `device.attributes["domain"].name`,
// `device.capacity["domain"].name`, `has(...)` of those, bool/int/string literals, lists with
// `in`, `quantity("...")` and `semver("...")` with compareTo/isGreaterThan/isLessThan,
// asInteger, startsWith/endsWith/contains, `!`, `&&`, `||`, comparisons and parentheses.

#include <cstdint>
#include <string>
#include <vector>

namespace sim::model {

struct CelNode {
  enum class Kind {
    BOOL,
    INT,
    STRING,
    QUANTITY,
    VERSION,
    LIST,  // literals (QUANTITY in milli-units)
    DRIVER,
    ATTRIBUTE,
    CAPACITY,  // device fields; ATTRIBUTE/CAPACITY: `text` = "domain/name"
    HAS,       // has() of the ATTRIBUTE/CAPACITY in args[0]
    NOT,
    AND,
    OR,
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE,
    IN,
    METHOD,  // args[0].text(args[1..])
  };
  Kind kind = Kind::BOOL;
  bool boolean = false;
  std::int64_t integer = 0;
  std::string text;
  std::vector<CelNode> args;
};

/// A selector that parsed; its expression is kept for messages.
struct DeviceSelector {
  std::string expression;
  CelNode root;
};

}  // namespace sim::model
