; a non-Bool on condition is an error of the first tick (docs/spec/autumn.md 3.5)
(program
  (= GRID_SIZE 4)
  (= n (initnext 0 (prev n)))
  (on 1 (= n 2)))
