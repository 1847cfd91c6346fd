"""NPB LU's problem classes as the scripts under runs/ need them: points per side of the cubic grid and
iterations. The one Python copy of the C++ class table (verify/class_table), whose own test checks it
against NPB's."""

GRID = {"S": 12, "W": 33, "A": 64, "B": 102, "C": 162}
ITERATIONS = {"S": 50, "W": 300, "A": 250, "B": 250, "C": 250}
