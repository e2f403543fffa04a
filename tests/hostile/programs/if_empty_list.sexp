; (if (list) ...): the empty list is falsy, so the else-branch always runs
(program
  (= GRID_SIZE 4)
  (= n (initnext 0 (if (list) then 1 else 2))))
