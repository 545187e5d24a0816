#include "io/cel_reader.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/io/quantity.hpp"

namespace sim::io {
namespace {

using model::CelNode;
using Kind = CelNode::Kind;

struct Token {
  enum class Type { IDENT, INT, STRING, OP, END } type;
  std::string text;
};

// Outside the subset, or not CEL at all: the message says which.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Token::Type::IDENT, s.substr(i, j - i)});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && (s[j] == '.' || s[j] == 'e' || s[j] == 'u' || s[j] == 'x'))
        throw Refused("only whole decimal numbers are supported");
      out.push_back({Token::Type::INT, s.substr(i, j - i)});
      i = j;
    } else if (c == '"' || c == '\'') {
      std::string text;
      std::size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j) {
        if (s[j] == '\\') {
          if (++j == s.size()) break;
          if (s[j] != '\\' && s[j] != '\'' && s[j] != '"')
            throw Refused("string escape \\" + std::string(1, s[j]) + " is not supported");
        }
        text += s[j];
      }
      if (j >= s.size()) throw Refused("unterminated string");
      out.push_back({Token::Type::STRING, text});
      i = j + 1;
    } else {
      static const char* const kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
      std::string op(1, c);
      for (const char* two : kTwo) {
        if (s.compare(i, 2, two) == 0) op = two;
      }
      if (op.size() == 1 && std::string("()[],.!<>-").find(c) == std::string::npos) {
        throw Refused("unexpected character '" + op + "'");
      }
      out.push_back({Token::Type::OP, op});
      i += op.size();
    }
  }
  // Long chains of || or method calls make deep trees without nesting: a bound on the length
  // keeps their evaluation's recursion short (real selectors have a few dozen tokens).
  constexpr std::size_t kMaxTokens = 512;
  if (out.size() > kMaxTokens)
    throw Refused("expression has more than " + std::to_string(kMaxTokens) + " tokens");
  out.push_back({Token::Type::END, ""});
  return out;
}

CelNode node(Kind kind, std::vector<CelNode> args = {}) {
  CelNode n;
  n.kind = kind;
  n.args = std::move(args);
  return n;
}

// Recursive descent over CEL's precedence: || below &&, below relations, below ! and -, below
// member access and calls.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  CelNode parse() {
    CelNode root = parse_or();
    if (peek().type != Token::Type::END) throw Refused("unexpected \"" + peek().text + "\"");
    return root;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  bool accept(const std::string& op) {
    if (peek().type == Token::Type::OP && peek().text == op) return ++pos_, true;
    return false;
  }
  void expect(const std::string& op) {
    if (!accept(op))
      throw Refused("expected \"" + op + "\"" +
                    (peek().text.empty() ? "" : " before \"" + peek().text + "\""));
  }
  std::string expect_ident() {
    if (peek().type != Token::Type::IDENT) throw Refused("expected a name");
    return tokens_[pos_++].text;
  }
  std::string expect_string() {
    if (peek().type != Token::Type::STRING) throw Refused("expected a string");
    return tokens_[pos_++].text;
  }

  // Nesting is bounded so a hostile expression cannot exhaust the stack here or when evaluated.
  static constexpr int kMaxDepth = 64;
  struct Nested {
    explicit Nested(int& depth) : depth_(depth) {
      if (++depth_ > kMaxDepth)
        throw Refused("expression nests more than " + std::to_string(kMaxDepth) + " deep");
    }
    ~Nested() { --depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
    int& depth_;
  };

  CelNode parse_or() {
    const Nested nested(depth_);
    CelNode left = parse_and();
    while (accept("||")) left = node(Kind::OR, {std::move(left), parse_and()});
    return left;
  }
  CelNode parse_and() {
    CelNode left = parse_relation();
    while (accept("&&")) left = node(Kind::AND, {std::move(left), parse_relation()});
    return left;
  }
  CelNode parse_relation() {
    CelNode left = parse_unary();
    static const std::pair<const char*, Kind> kOps[] = {{"==", Kind::EQ}, {"!=", Kind::NE},
                                                        {"<=", Kind::LE}, {">=", Kind::GE},
                                                        {"<", Kind::LT},  {">", Kind::GT}};
    for (const auto& [op, kind] : kOps) {
      if (accept(op)) return node(kind, {std::move(left), parse_unary()});
    }
    if (peek().type == Token::Type::IDENT && peek().text == "in") {
      ++pos_;
      return node(Kind::IN, {std::move(left), parse_unary()});
    }
    return left;
  }
  CelNode parse_unary() {
    const Nested nested(depth_);
    if (accept("!")) return node(Kind::NOT, {parse_unary()});
    if (accept("-")) {
      if (peek().type != Token::Type::INT) throw Refused("unary minus only before a number");
      CelNode n = integer(tokens_[pos_++].text);
      n.integer = -n.integer;
      return n;
    }
    return parse_postfix();
  }
  CelNode parse_postfix() {
    CelNode target = parse_primary();
    while (accept(".")) {
      const std::string method = expect_ident();
      static const std::set<std::string> kMethods = {"compareTo", "isGreaterThan", "isLessThan",
                                                     "asInteger", "startsWith",    "endsWith",
                                                     "contains"};
      if (!kMethods.contains(method)) throw Refused("method " + method + "() is not supported");
      CelNode call = node(Kind::METHOD, {std::move(target)});
      call.text = method;
      expect("(");
      if (!accept(")")) {
        do {
          call.args.push_back(parse_or());
        } while (accept(","));
        expect(")");
      }
      target = std::move(call);
    }
    return target;
  }
  CelNode integer(const std::string& digits) {
    CelNode n = node(Kind::INT);
    errno = 0;
    char* end = nullptr;
    n.integer = std::strtoll(digits.c_str(), &end, 10);
    if (errno == ERANGE) throw Refused("number out of range: " + digits);
    return n;
  }
  // device.driver, device.attributes["domain"].name, device.capacity["domain"].name
  CelNode device_field() {
    expect(".");
    const std::string field = expect_ident();
    if (field == "driver") return node(Kind::DRIVER);
    if (field != "attributes" && field != "capacity")
      throw Refused("device." + field + " is not supported");
    expect("[");
    const std::string domain = expect_string();
    expect("]");
    std::string name;
    if (accept(".")) {
      name = expect_ident();
    } else {
      expect("[");
      name = expect_string();
      expect("]");
    }
    CelNode n = node(field == "attributes" ? Kind::ATTRIBUTE : Kind::CAPACITY);
    n.text = domain + "/" + name;
    return n;
  }
  CelNode parse_primary() {
    const Token t = peek();
    if (t.type == Token::Type::INT) return ++pos_, integer(t.text);
    if (t.type == Token::Type::STRING) {
      ++pos_;
      CelNode n = node(Kind::STRING);
      n.text = t.text;
      return n;
    }
    if (accept("(")) {
      CelNode inner = parse_or();
      expect(")");
      return inner;
    }
    if (accept("[")) {
      CelNode list = node(Kind::LIST);
      if (!accept("]")) {
        do {
          list.args.push_back(parse_or());
        } while (accept(","));
        expect("]");
      }
      return list;
    }
    if (t.type != Token::Type::IDENT)
      throw Refused(t.text.empty() ? "expression ends too early" : "unexpected \"" + t.text + "\"");
    ++pos_;
    if (t.text == "true" || t.text == "false") {
      CelNode n = node(Kind::BOOL);
      n.boolean = t.text == "true";
      return n;
    }
    if (t.text == "device") return device_field();
    if (t.text == "has") {
      expect("(");
      if (peek().type != Token::Type::IDENT || peek().text != "device")
        throw Refused("has() only of a device attribute or capacity");
      ++pos_;
      CelNode field = device_field();
      if (field.kind == Kind::DRIVER) throw Refused("has() only of a device attribute or capacity");
      expect(")");
      return node(Kind::HAS, {std::move(field)});
    }
    if (t.text == "quantity" || t.text == "semver") {
      expect("(");
      const std::string text = expect_string();
      expect(")");
      if (t.text == "semver") {
        CelNode n = node(Kind::VERSION);
        n.text = text;
        return n;
      }
      const std::optional<Quantity> q = parse_quantity(text);
      const std::optional<std::int64_t> milli = q ? q->milli_value() : std::nullopt;
      if (!milli) throw Refused("not a quantity: \"" + text + "\"");
      CelNode n = node(Kind::QUANTITY);
      n.integer = *milli;
      return n;
    }
    throw Refused("\"" + t.text + "\" is not supported");
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::optional<model::DeviceSelector> parse_device_selector(const std::string& expression,
                                                           std::string& why) {
  try {
    return model::DeviceSelector{expression, Parser(tokenize(expression)).parse()};
  } catch (const Refused& e) {
    why = e.what();
    return std::nullopt;
  }
}

}  // namespace sim::io
