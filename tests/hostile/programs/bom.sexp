; saved with a UTF-8 byte order mark: the mark is skipped
(program
  (= GRID_SIZE 3)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 1 1)) (prev dot)))
  (on left (= dot (moveLeft dot))))
