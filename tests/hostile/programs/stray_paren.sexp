(program
  (= GRID_SIZE 4)))
