; (if "no" ...) always takes its then-branch: check refuses it (docs/spec/autumn.md 5.2)
(program
  (= GRID_SIZE 4)
  (object Lamp (: lit Bool) (Cell 0 0 (if "no" then "red" else "blue")))
  (= lamp (initnext (Lamp false (Position 0 0)) (prev lamp))))
