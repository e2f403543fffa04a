; CHANGED PROGRAM (change detection): foxes starve as soon as they would turn red (after 8 ticks without food instead of 12), once the trigger has held.
; ecosystem: an 18x18 meadow of white rabbits and orange foxes. Every tick each rabbit
; takes a random step (or stays); a fox with a rabbit within 6 cells steps toward the
; nearest one two times in three, else it wanders at random too. A fox eats a rabbit on or next to its cell; a fox that has
; not eaten for 8 ticks turns red, and after 12 it starves and leaves a gray bone (gone 3
; ticks later). A fox that has eaten twice has a cub (at most 4 foxes). Every 4th tick a
; random rabbit has a kit (at most 12 rabbits). When a species has died out, newcomers
; wander in now and then. Arrows walk the cyan ranger (animals never step on it); a click
; on a cell next to the ranger plants a dark-green bush there, or removes one. Foxes
; cannot enter bushes, and a rabbit in a bush is hidden and safe.
(program
  (= GRID_SIZE 18)

  (object Rabbit (Cell 0 0 "white"))
  (object Fox (: tag Int) (: hunger Int) (: fed Int) (Cell 0 0 (if (> hunger 7) then "red" else "orange")))
  (object Bone (: tag Int) (: age Int) (Cell 0 0 "gray"))
  (object Bush (Cell 0 0 "darkgreen"))
  (object Ranger (Cell 0 0 "cyan"))

  (= steps (list (Position 1 0) (Position -1 0) (Position 0 1) (Position 0 -1) (Position 0 0)))
  (= corners (list (Position 0 0) (Position 17 0) (Position 0 17) (Position 17 17)))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= eaten (initnext 0 (prev eaten)))
  (= starved (initnext 0 (prev starved)))
  (= planted (initnext 0 (prev planted)))
  (= nextTag (initnext 3 (prev nextTag)))
  (= rabbits (initnext (map (--> q (Rabbit q)) (list (Position 3 3) (Position 14 4) (Position 5 13)
                                                     (Position 12 12) (Position 8 2) (Position 2 9)))
                       (prev rabbits)))
  (= bushes (initnext (list) (prev bushes)))
  (= bones (initnext (list) (prev bones)))
  (= foxes (initnext (list (Fox 1 0 0 (Position 15 15)) (Fox 2 4 0 (Position 1 16))) (prev foxes)))
  (= ranger (initnext (Ranger (Position 9 9)) (prev ranger)))

  (= clampPos (--> q (Position (max 0 (min 17 (.. q x))) (max 0 (min 17 (.. q y))))))
  (= bushAt (--> q (any (--> b (== (.. b origin) q)) bushes)))
  (= beastAt (--> q (| (any (--> r (== (.. r origin) q)) rabbits)
                       (| (any (--> f (== (.. f origin) q)) foxes) (any (--> b (== (.. b origin) q)) bones)))))
  (= nextTo (--> (p q) (<= (+ (abs (- (.. p x) (.. q x))) (abs (- (.. p y) (.. q y)))) 1)))
  ; a random step for an animal; it stays when the step hits the ranger (or, for foxes, a bush)
  (= wanderTo (--> (a shy)
    (let (= wStep (uniformChoice steps))
         (= wTo (clampPos (Position (+ (.. (.. a origin) x) (.. wStep x)) (+ (.. (.. a origin) y) (.. wStep y)))))
         (if (| (== wTo (.. ranger origin)) (& shy (bushAt wTo))) then (.. a origin) else wTo))))
  ; a fox within 6 cells of a rabbit (not in a bush) steps toward the nearest one two times
  ; in three; otherwise it wanders like a rabbit
  (= huntTo (--> f
    (let (= hPrey (filter (--> r (! (bushAt (.. r origin)))) rabbits))
         (= hChase (uniformChoice (list true true false)))
         (= hWander (wanderTo f true))
         (if (& hChase (> (length hPrey) 0)) then (chaseTo f (closest f hPrey) hWander) else hWander))))
  (= chaseTo (--> (f near fallback)
    (let (= hdx (- (.. (.. near origin) x) (.. (.. f origin) x)))
         (= hdy (- (.. (.. near origin) y) (.. (.. f origin) y)))
         (= hTo (if (>= (abs hdx) (abs hdy))
                 then (Position (+ (.. (.. f origin) x) (sign hdx)) (.. (.. f origin) y))
                 else (Position (.. (.. f origin) x) (+ (.. (.. f origin) y) (sign hdy)))))
         (if (> (+ (abs hdx) (abs hdy)) 6) then fallback
          else (if (| (== hTo (.. ranger origin)) (bushAt hTo)) then (.. f origin) else hTo)))))
  ; a fox's turn: step, then eat a rabbit (not in a bush) on or next to its cell, else hunger
  (= foxTurn (--> f
    (let (= fPos (huntTo f))
         (= fMeal (filter (--> r (& (nextTo (.. r origin) fPos) (! (bushAt (.. r origin))))) rabbits))
         (if (> (length fMeal) 0)
          then (let (= rabbits (removeObj rabbits (head fMeal)))
                    (= eaten (+ eaten 1))
                    (Fox (.. f tag) 0 (+ (.. f fed) 1) fPos))
          else (Fox (.. f tag) (+ (.. f hunger) 1) (.. f fed) fPos)))))

  (= stride (--> (sx sy)
    (let (= rTo (clampPos (Position (+ (.. (.. ranger origin) x) sx) (+ (.. (.. ranger origin) y) sy))))
         (if (beastAt rTo) then ranger else (= ranger (updateObj ranger "origin" rTo))))))
  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (stride -1 0))
  (on right (stride 1 0))
  (on up (stride 0 -1))
  (on down (stride 0 1))
  (on (& clicked (nextTo click (.. ranger origin)))
    (if (bushAt click) then (= bushes (removeObj bushes (--> b (== (.. b origin) click))))
     else (if (& (< (length bushes) 10) (& (!= click (.. ranger origin)) (! (beastAt click))))
           then (let (= bushes (addObj bushes (Bush click)))
                     (= planted (+ planted 1)))
           else bushes)))

  (on true
    (let (= rabbits (map (--> r (updateObj r "origin" (wanderTo r false))) rabbits))
         (= foxes (map foxTurn foxes))
         ; starvation
         (= bones (addObj (updateObj (removeObj bones (--> b (<= (.. b age) 1)))
                                     (--> b (updateObj b "age" (- (.. b age) 1))))
                          (map (--> f (Bone (.. f tag) 3 (.. f origin))) (filter (--> f (>= (.. f hunger) (if changed then 8 else 12))) foxes))))
         (= starved (+ starved (length (filter (--> f (>= (.. f hunger) (if changed then 8 else 12))) foxes))))
         (= foxes (removeObj foxes (--> f (>= (.. f hunger) (if changed then 8 else 12)))))
         ; a fox that has eaten twice has a cub
         (= parents (filter (--> f (>= (.. f fed) 2)) foxes))
         (if (& (> (length parents) 0) (< (length foxes) 4))
          then (let (= foxes (addObj (updateObj foxes (--> f (updateObj f "fed" 0)) (--> f (== (.. f tag) (.. (head parents) tag))))
                                     (Fox nextTag 0 0 (.. (head parents) origin))))
                    (= nextTag (+ nextTag 1)))
          else foxes)
         ; rabbits breed every 4th tick
         (if (& (== (% clock 4) 0) (& (> (length rabbits) 0) (< (length rabbits) 12)))
          then (= rabbits (addObj rabbits (Rabbit (.. (uniformChoice rabbits) origin))))
          else rabbits)
         ; newcomers when a species has died out
         (if (& (== (length rabbits) 0) (== (% clock 10) 0))
          then (= rabbits (map (--> q (Rabbit q)) (randomPositions 18 2)))
          else rabbits)
         (if (& (== (length foxes) 0) (== (% clock 15) 0))
          then (let (= foxes (list (Fox nextTag 0 0 (uniformChoice corners))))
                    (= nextTag (+ nextTag 1)))
          else foxes))))
