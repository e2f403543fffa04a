; 1e5 is read as 1 (the first-token rule, docs/spec/autumn.md 2.2)
(program
  (= GRID_SIZE 8)
  (= far 1e5))
