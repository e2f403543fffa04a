(program
  (= GRID_SIZE 4)
  (= name "no end))
