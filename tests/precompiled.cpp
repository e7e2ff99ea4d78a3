// The program that owns the tests' precompiled header (tests/CMakeLists.txt): every test reuses
// the header it compiles. It defines nothing; run, it runs doctest with no tests.
