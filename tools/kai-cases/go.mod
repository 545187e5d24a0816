module kaisim/tools/kai-cases

go 1.22
