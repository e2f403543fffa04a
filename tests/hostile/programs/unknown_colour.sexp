; a colour outside the palette of docs/spec/autumn.md 16: a warning (Autumn accepts any string)
(program
  (= GRID_SIZE 4)
  (object Dot (Cell 0 0 "redd"))
  (= dot (initnext (Dot (Position 1 1)) (prev dot))))
