; (if left ...) tests the function itself, which is always true: ((left)) calls it
(program
  (= GRID_SIZE 4)
  (= n (initnext 0 (if left then 1 else 2))))
