// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// A compile that spends its time in templates: the C++ compile loop of bench section r.
#include <regex>
#include <map>
#include <vector>
#include <string>
#include <algorithm>
#include <iostream>
#include <sstream>
#include <unordered_map>
#include <functional>
#include <memory>
struct S { std::string a; int b; bool operator<(const S&o) const { return b < o.b; } };
int main() {
  std::vector<S> v; std::map<std::string, std::vector<S>> m; std::unordered_map<int, std::string> u;
  std::regex r("([a-z]+)\\d+"); std::smatch sm; std::string s = "abc123";
  if (std::regex_search(s, sm, r)) std::cout << sm[1] << "\n";
  std::sort(v.begin(), v.end()); std::stringstream ss; ss << m.size() << u.size();
  std::function<int(int)> f = [](int x){ return x*2; }; auto p = std::make_shared<S>();
  return f(p->b);
}
