// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// check-report's demangle tier: a source whose compile keeps clang++ in its
// template machinery (std::regex, std::map, std::sort of a struct), so that
// the compiler's own C++ functions (libLLVM, libclang-cpp) fill the profile.
#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

struct Entry {
	std::string key;
	int rank;
	double weight;
};

template <typename T> struct Tally {
	std::map<std::string, std::vector<T>> by_key;
	void add(const std::string &k, const T &v) { by_key[k].push_back(v); }
};

int tally_words(const std::string &text)
{
	static const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
	Tally<Entry> t;
	int n = 0;

	for (auto it = std::sregex_iterator(text.begin(), text.end(), word);
	     it != std::sregex_iterator(); ++it)
		t.add(it->str(), Entry{it->str(), n++, 1.0});
	std::vector<Entry> all;
	for (auto &kv : t.by_key)
		all.insert(all.end(), kv.second.begin(), kv.second.end());
	std::sort(all.begin(), all.end(), [](const Entry &a, const Entry &b) {
		return a.rank != b.rank ? a.rank > b.rank : a.key < b.key;
	});
	return all.empty() ? 0 : all.front().rank;
}
