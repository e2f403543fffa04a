; Chase: a cat steps every other tick toward whichever is closest, the mouse or a
; piece of cheese (unitVector toward closest). The cat eats the cheese it reaches;
; a caught mouse runs back to a random corner. Arrows move the mouse; a click
; puts down cheese.
(program
  (= GRID_SIZE 16)

  (object Cat (Cell 0 0 "orange"))
  (object Mouse (Cell 0 0 "silver"))
  (object Cheese (Cell 0 0 "gold"))

  (= corners (list (Position 0 0) (Position 15 0) (Position 0 15) (Position 15 15)))
  (= targetsOf (--> () (addObj (prev cheeses) (prev mouse))))
  (= bounded (--> (critter moved)
    (if (isWithinBounds moved) then moved else critter)))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= mouse (initnext (Mouse (Position 2 2))
    (if (== (.. (prev mouse) origin) (.. (prev cat) origin))
     then (Mouse (uniformChoice corners)) else (prev mouse))))
  (= cheeses (initnext (list (Cheese (Position 12 3)) (Cheese (Position 4 12)) (Cheese (Position 13 13)))
    (removeObj (prev cheeses) (--> ch (== (.. ch origin) (.. (prev cat) origin))))))
  (= cat (initnext (Cat (Position 8 8))
    (if (== (% (prev clock) 2) 0)
     then (move (prev cat) (unitVector (prev cat) (closest (prev cat) ((targetsOf)))))
     else (prev cat))))

  (on left (= mouse (bounded mouse (moveLeft mouse))))
  (on right (= mouse (bounded mouse (moveRight mouse))))
  (on up (= mouse (bounded mouse (moveUp mouse))))
  (on down (= mouse (bounded mouse (moveDown mouse))))
  (on clicked (= cheeses (addObj cheeses (Cheese click)))))
