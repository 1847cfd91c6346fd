// The compiled-in class table must equal tests/npb_lu_classes.json, the
// project's record of NPB 3.4's values (setparams and verify: facts, copied
// into the repository so that a fresh clone tests against them).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "verify/class_table.hpp"

TEST(ClassTable, MatchesNpbReferenceJson) {
  std::ifstream in(NPBLU_REFERENCE_CLASSES_JSON);
  ASSERT_TRUE(in) << "cannot open " << NPBLU_REFERENCE_CLASSES_JSON;
  const auto doc = nlohmann::json::parse(in);
  const auto& classes = doc.at("classes");
  EXPECT_EQ(classes.size(), npblu::problem_classes().size());
  for (const auto& pc : npblu::problem_classes()) {
    SCOPED_TRACE(std::string(1, pc.name));
    const auto& c = classes.at(std::string(1, pc.name));
    EXPECT_EQ(c.at("n").get<int>(), pc.n);
    EXPECT_EQ(c.at("itmax").get<int>(), pc.itmax);
    EXPECT_EQ(c.at("dt").get<double>(), pc.dt);
    for (int m = 0; m < 5; ++m) {
      EXPECT_EQ(c.at("xcr")[m].get<double>(), pc.reference.xcr[m]);
      EXPECT_EQ(c.at("xce")[m].get<double>(), pc.reference.xce[m]);
    }
    EXPECT_EQ(c.at("xci").get<double>(), pc.reference.xci);
  }
  EXPECT_EQ(doc.at("epsilon").get<double>(), npblu::kVerificationEpsilon);
}

TEST(ClassTable, LookupIsCaseInsensitive) {
  EXPECT_EQ(npblu::find_problem_class('a')->n, 64);
  EXPECT_EQ(npblu::find_problem_class('C')->n, 162);
  EXPECT_FALSE(npblu::find_problem_class('Q'));
  EXPECT_FALSE(npblu::find_problem_class('U'));
}
