#pragma once
// A small map keyed by name, read-only once built, whose copies share one map: the state of a
// cycle copies every task and node, and these maps (labels, annotations, MIG profiles) are
// empty for most pods and never change inside a cycle.

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sim::model {

template <typename Value>
class SharedMap {
 public:
  /// Transparent, so a lookup by a literal key makes no temporary string.
  using Map = std::map<std::string, Value, std::less<>>;
  using const_iterator = typename Map::const_iterator;

  SharedMap() = default;
  explicit SharedMap(Map map)
      : map_(map.empty() ? nullptr : std::make_shared<const Map>(std::move(map))) {}

  const Map& map() const { return map_ ? *map_ : no_entries(); }
  const_iterator begin() const { return map().begin(); }
  const_iterator end() const { return map().end(); }
  const_iterator find(std::string_view key) const { return map().find(key); }
  bool contains(std::string_view key) const { return map().contains(key); }
  const Value& at(std::string_view key) const {
    auto it = map().find(key);
    if (it == map().end()) throw std::out_of_range("no entry " + std::string(key));
    return it->second;
  }
  std::size_t size() const { return map().size(); }
  bool empty() const { return map().empty(); }
  bool operator==(const SharedMap& other) const { return map() == other.map(); }

  /// Sets one entry in this copy only (readers build maps once; copying the few entries is fine).
  void set(std::string key, Value value) {
    Map changed = map();
    changed.insert_or_assign(std::move(key), std::move(value));
    *this = SharedMap(std::move(changed));
  }
  /// Sets every (key, value) of `entries` in this copy only, copying the map once.
  template <typename Entries>
  void set_all(const Entries& entries) {
    if (entries.empty()) return;
    Map changed = map();
    for (const auto& [key, value] : entries) changed.insert_or_assign(key, value);
    *this = SharedMap(std::move(changed));
  }
  void clear() { map_.reset(); }

 private:
  static const Map& no_entries() {
    static const Map none;
    return none;
  }
  std::shared_ptr<const Map> map_;
};

}  // namespace sim::model
