; keys: a 12x12 walled level of four rooms. Arrows walk the white player (walls block).
; Walking onto a key (red, blue or yellow) picks it up; the key in hand shows in the top-left
; corner. The player holds one key at a time: walking onto a key while holding one swaps them
; (the held key is left on that cell). Walking into a door (dark red, dark blue, goldenrod)
; with the key of its colour in hand opens the door and uses the key up; the player stays put
; that tick. A click on the green lever toggles which of two orange gates is open (refused
; while the player stands in a gateway). Walking onto the purple shrine with a key in hand
; turns the key into the next colour: red to blue, blue to yellow, yellow to red. Walking
; onto the gold treasure collects it.
(program
  (= GRID_SIZE 12)

  (object Player (Cell 0 0 "white"))
  (object Tile (: look String) (Cell 0 0 look))
  (object Key (: hue String) (Cell 0 0 hue))
  (object Door (: hue String) (Cell 0 0 (if (== hue "red") then "darkred"
                                         else (if (== hue "blue") then "darkblue" else "goldenrod"))))

  (= wallSpots (concat (list
    (map (--> i (Position i 0)) (range 1 12)) (map (--> i (Position i 11)) (range 0 12))
    (map (--> i (Position 0 i)) (range 1 11)) (map (--> i (Position 11 i)) (range 1 11))
    (map (--> i (Position 5 i)) (list 1 3 4 5 6 7 9 10))
    (map (--> i (Position i 5)) (list 1 3 4))
    (map (--> i (Position i 6)) (list 6 7 9 10)))))
  (= gateASpots (list (Position 5 2)))
  (= gateBSpots (list (Position 2 5)))
  (= gateSpots (list (Position 5 2) (Position 2 5)))
  (= leverPos (Position 1 4))
  (= shrinePos (Position 3 9))
  (= treasurePos (Position 9 9))

  (= gateTiles (--> openA (map (--> q (Tile "orange" q)) (if openA then gateBSpots else gateASpots))))
  (= leverTile (--> openA (Tile (if openA then "green" else "lightgreen") leverPos)))

  (= walls (initnext (concat (list
      (map (--> q (Tile "gray" q)) wallSpots)
      (list (Tile "purple" shrinePos))))
    (prev walls)))
  (= gateA (initnext false (prev gateA)))
  (= gates (initnext (gateTiles false) (prev gates)))
  (= lever (initnext (leverTile false) (prev lever)))
  (= keys (initnext (list (Key "red" (Position 3 3)) (Key "yellow" (Position 9 2))) (prev keys)))
  (= doors (initnext (list (Door "blue" (Position 8 6)) (Door "yellow" (Position 5 8))) (prev doors)))
  (= held (initnext "none" (prev held)))
  (= found (initnext false (prev found)))
  (= traded (initnext false (prev traded)))
  (= opened (initnext 0 (prev opened)))
  (= prize (initnext (list (Tile "gold" treasurePos)) (prev prize)))
  (= hud (initnext (Tile "gray" (Position 0 0)) (prev hud)))
  (= player (initnext (Player (Position 1 1)) (prev player)))

  (= shiftPos (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= turnKey (--> c (if (== c "red") then "blue" else (if (== c "blue") then "yellow"
                     else (if (== c "yellow") then "red" else c)))))
  (= turnBack (--> c (if (== c "red") then "yellow" else (if (== c "yellow") then "blue"
                      else (if (== c "blue") then "red" else c)))))
  (= closedGate (--> q (in q (if gateA then gateBSpots else gateASpots))))
  (= solid (--> q (| (in q wallSpots) (| (== q leverPos) (closedGate q)))))
  (= doorAt (--> q (any (--> d (== (.. d origin) q)) doors)))
  (= keyAt (--> q (any (--> k (== (.. k origin) q)) keys)))

  ; try to open the door at q with the key in hand
  (= tryDoor (--> q
    (let (= dHue (.. (head (filter (--> d (== (.. d origin) q)) doors)) hue))
      (if (== dHue held)
       then (let (= doors (removeObj doors (--> d (== (.. d origin) q))))
                 (= held "none")
                 (= opened (+ opened 1)))
       else held))))

  ; step onto q: pick up or swap a key, use the shrine, collect the treasure
  (= arrive (--> q
    (let (= player (updateObj player "origin" q))
         (if (keyAt q)
          then (let (= kHue (.. (head (filter (--> k (== (.. k origin) q)) keys)) hue))
                 (if (== held "none")
                  then (let (= keys (removeObj keys (--> k (== (.. k origin) q))))
                            (= held kHue))
                  else (let (= keys (updateObj keys (--> k (updateObj k "hue" held))
                                               (--> k (== (.. k origin) q))))
                            (= held kHue))))
          else held)
         (if (& (== q shrinePos) (!= held "none"))
          then (let (= held (turnKey held)) (= traded true))
          else held)
         (if (& (== q treasurePos) (! found))
          then (let (= found true) (= prize (list)))
          else found))))

  (= walk (--> (sx sy)
    (let (= aim (shiftPos (.. player origin) sx sy))
      (if (solid aim) then player
       else (if (doorAt aim) then (tryDoor aim)
             else (arrive aim))))))

  (on left (walk -1 0))
  (on right (walk 1 0))
  (on up (walk 0 -1))
  (on down (walk 0 1))
  (on (& (clicked lever) (! (in (.. player origin) gateSpots)))
    (let (= gateA (! gateA))
         (= gates (gateTiles gateA))
         (= lever (leverTile gateA))))
  (on true (= hud (Tile (if (== held "none") then "gray" else held) (Position 0 0)))))
