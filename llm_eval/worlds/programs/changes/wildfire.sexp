; CHANGED PROGRAM (change detection): stumps catch fire from burning neighbours like trees (firebreaks stop working), once the trigger has held.
; wildfire: a 20x20 forest of four square groves joined by one-tree-wide belts of trees.
; Every 10 ticks lightning sets a random living tree on fire. Fire burns orange then red for
; four ticks, leaves dark-gray ash, and two ticks after catching it lights the trees next
; to it (left, right, up, down), so it runs along the belts from grove to grove. Ash grows
; back: after 20 ticks a light-green sapling appears, which becomes a tree 10 ticks later.
; A click on a tree cuts it (a brown stump, which never burns: a firebreak); a click on a
; stump replants a sapling. Arrows fly a white water tanker (it starts in the empty middle);
; the tree or fire under it is soaked (blue) and cannot burn; after 10 ticks it is a tree.
(program
  (= GRID_SIZE 20)

  ; kind: 0 tree, 1 fire, 2 ash, 3 stump, 4 wet tree, 5 sapling; age: ticks in that kind
  (object Patch (: kind Int) (: age Int)
    (Cell 0 0 (if (== kind 0) then "green"
               else (if (== kind 1) then (if (< age 2) then "orange" else "red")
               else (if (== kind 2) then "darkgray"
               else (if (== kind 3) then "brown"
               else (if (== kind 4) then "blue" else "lightgreen")))))))
  (object Tanker (Cell 0 0 "white"))

  (= square (--> (x0 y0 n) (concat (map (--> i (map (--> j (Position (+ x0 i) (+ y0 j))) (range 0 n))) (range 0 n)))))
  (= forestSpots (concat (list
    (square 1 1 5) (square 14 1 5) (square 1 14 5) (square 14 14 5)
    (map (--> i (Position i 3)) (range 6 14))
    (map (--> i (Position 16 i)) (range 6 14))
    (map (--> i (Position i 16)) (range 6 14))
    (map (--> i (Position 3 i)) (range 6 14)))))

  (= kindIs (--> (p k) (== (.. p kind) k)))
  (= becomes (--> (p k) (updateObj (updateObj p "kind" k) "age" 0)))
  (= older (--> p (updateObj p "age" (+ (.. p age) 1))))

  ; one tick of one patch; hot = the cells next to a fire that has burned for a tick
  (= burn (--> (p hot)
    (let (= k (.. p kind))
         (= a (.. p age))
         (if (== k 0) then (if (in (.. p origin) hot) then (becomes p 1) else p)
          else (if (== k 1) then (if (< a 3) then (older p) else (becomes p 2))
          else (if (== k 2) then (if (< a 19) then (older p) else (becomes p 5))
          else (if (== k 3) then (if (& changed (& (>= a 1) (& (in (.. p origin) hot) (!= (.. p origin) (.. tanker origin)))))
                                  then (becomes p 1) else (if (< a 1) then (older p) else p))
          else (if (< a 9) then (older p) else (becomes p 0)))))))))
  (= soak (--> p (if (& (== (.. p origin) (.. tanker origin)) (| (kindIs p 0) (kindIs p 1)))
                  then (let (= doused (if (kindIs p 1) then (+ doused 1) else doused)) (becomes p 4))
                  else p)))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= cuts (initnext 0 (prev cuts)))
  (= strikes (initnext 0 (prev strikes)))
  (= doused (initnext 0 (prev doused)))
  (= patches (initnext (map (--> q (Patch 0 0 q)) forestSpots) (prev patches)))
  (= tanker (initnext (Tanker (Position 10 10)) (prev tanker)))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (> (.. (.. tanker origin) x) 0)) (= tanker (moveLeft tanker)))
  (on (& right (< (.. (.. tanker origin) x) 19)) (= tanker (moveRight tanker)))
  (on (& up (> (.. (.. tanker origin) y) 0)) (= tanker (moveUp tanker)))
  (on (& down (< (.. (.. tanker origin) y) 19)) (= tanker (moveDown tanker)))

  ; a click on a tree cuts it, a click on a stump replants a sapling; other clicks do nothing
  (on clicked
    (let (= here (filter (--> p (== (.. p origin) click)) patches))
         (if (== (length here) 0) then cuts
          else (if (kindIs (head here) 0)
                then (let (= patches (map (--> p (if (== (.. p origin) click) then (becomes p 3) else p)) patches))
                          (= cuts (+ cuts 1)))
                else (if (kindIs (head here) 3)
                      then (= patches (map (--> p (if (== (.. p origin) click) then (becomes p 5) else p)) patches))
                      else cuts)))))

  ; fire spreads, burns out, ash regrows, wet trees dry; the tanker soaks what is under it;
  ; every 10 ticks lightning strikes a random tree
  (on true
    (let (= hot (concat (map (--> f (adjPositions (.. f origin)))
                             (filter (--> p (& (kindIs p 1) (>= (.. p age) 1))) patches))))
         (= patches (map soak (map (--> p (burn p hot)) patches)))
         (if (== (% clock 10) 5)
          then (let (= trees (filter (--> p (kindIs p 0)) patches))
                    (if (> (length trees) 0)
                     then (let (= struck (.. (uniformChoice trees) origin))
                               (= strikes (+ strikes 1))
                               (= patches (map (--> p (if (== (.. p origin) struck) then (becomes p 1) else p)) patches)))
                     else strikes))
          else strikes))))
