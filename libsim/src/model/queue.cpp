#include "sim/model/queue.hpp"

#include <limits>

namespace sim::model {

CreationTime CreationTime::unknown(std::int64_t position) {
  return CreationTime{std::numeric_limits<std::int64_t>::max(), position};
}

}  // namespace sim::model
