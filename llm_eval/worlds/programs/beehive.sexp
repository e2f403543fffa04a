; beehive: a 16x16 meadow with a beehive in the top-left corner (12 comb cells, tan when
; empty, gold when filled, doorway brown at (4,2)). Yellow bees wander at random, one cell
; a tick; a bee that lands on a flower with nectar sips one unit, turns orange and flies
; straight home (sideways first, then up or down); at the doorway it fills one comb cell.
; Flowers show their nectar: magenta 3, pink 2, lightpink 1, lightgreen empty. Arrows walk
; the white beekeeper, who refills any flower he stands on. A click on the meadow plants a
; flower (at most 6), a click on a flower picks it, and a click on a full hive harvests it
; into a jar (goldenrod, on the shelf row 0).
(program
  (= GRID_SIZE 16)
  (= background "darkgreen")

  (object Bee (: laden Bool) (Cell 0 0 (if laden then "orange" else "yellow")))
  (object Flower (: nectar Int)
    (Cell 0 0 (if (> nectar 2) then "magenta" else (if (> nectar 1) then "pink"
               else (if (> nectar 0) then "lightpink" else "lightgreen")))))
  (object Tile (: look String) (Cell 0 0 look))
  (object Keeper (Cell 0 0 "white"))

  (= doorway (Position 4 2))
  (= steps (list (Position 1 0) (Position -1 0) (Position 0 1) (Position 0 -1) (Position 0 0)))
  (= inHive (--> p (& (< (.. p x) 4) (< (.. p y) 4))))
  (= allowed (--> p (& (>= (.. p x) 0) (& (< (.. p x) 16) (& (>= (.. p y) 1)
                      (& (< (.. p y) 16) (! (inHive p))))))))
  (= combSpot (--> i (Position (% i 4) (- 3 (/ i 4)))))
  (= flowerAt (--> (fs p) (any (--> f (== (.. f origin) p)) fs)))

  ; an empty bee takes a random step (or stays) unless it would leave the meadow
  (= wander (--> p
    (let (= jump (uniformChoice steps))
         (= aimed (Position (+ (.. p x) (.. jump x)) (+ (.. p y) (.. jump y))))
         (if (allowed aimed) then aimed else p))))
  ; a laden bee flies one cell toward the doorway, sideways first
  (= homeward (--> p
    (let (= gx (sign (- (.. doorway x) (.. p x))))
         (= gy (sign (- (.. doorway y) (.. p y))))
         (if (!= gx 0) then (Position (+ (.. p x) gx) (.. p y))
          else (Position (.. p x) (+ (.. p y) gy))))))
  (= beeStep (--> (done b)
    (if (.. b laden)
     then (let (= dest (homeward (.. b origin)))
               (if (== dest doorway)
                then (let (= honey (min 12 (+ honey 1)))
                          (= delivered (+ delivered 1))
                          (addObj done (Bee false dest)))
                else (addObj done (Bee true dest))))
     else (let (= dest (wander (.. b origin)))
               (if (any (--> f (& (== (.. f origin) dest) (> (.. f nectar) 0))) flowers)
                then (let (= flowers (updateObj flowers
                                       (--> f (updateObj f "nectar" (- (.. f nectar) 1)))
                                       (--> f (== (.. f origin) dest))))
                          (= sipped (+ sipped 1))
                          (addObj done (Bee true dest)))
                else (addObj done (Bee false dest)))))))

  (= hive (initnext (concat (list
      (map (--> i (Tile "tan" (combSpot i))) (range 0 12))
      (list (Tile "brown" doorway))))
    (prev hive)))
  (= honey (initnext 0 (prev honey)))
  (= delivered (initnext 0 (prev delivered)))
  (= sipped (initnext 0 (prev sipped)))
  (= planted (initnext 0 (prev planted)))
  (= jars (initnext 0 (prev jars)))
  (= combs (initnext (list) (map (--> i (Tile "gold" (combSpot i))) (range 0 honey))))
  (= shelf (initnext (list) (map (--> i (Tile "goldenrod" (Position i 0))) (range 0 jars))))
  (= flowers (initnext (list (Flower 3 (Position 12 6)) (Flower 3 (Position 9 13))) (prev flowers)))
  (= keeper (initnext (Keeper (Position 8 8)) (prev keeper)))
  (= bees (initnext (list (Bee false (Position 4 2)) (Bee false (Position 5 3)) (Bee false (Position 6 1)))
           (prev bees)))

  (= walk (--> (sx sy)
    (let (= aim (Position (+ (.. (.. keeper origin) x) sx) (+ (.. (.. keeper origin) y) sy)))
         (if (allowed aim) then (= keeper (updateObj keeper "origin" aim)) else keeper))))
  (on left (walk -1 0))
  (on right (walk 1 0))
  (on up (walk 0 -1))
  (on down (walk 0 1))

  ; a click: on the full hive -> a jar; on a flower -> picked; on free meadow -> planted
  (on clicked
    (if (& (inHive click) (>= (.. click y) 1))
     then (if (== honey 12) then (let (= honey 0) (= jars (min 16 (+ jars 1)))) else honey)
     else (if (flowerAt flowers click)
           then (= flowers (removeObj flowers (--> f (== (.. f origin) click))))
           else (if (& (allowed click) (& (!= click doorway)
                       (& (!= click (.. keeper origin)) (< (length flowers) 6))))
                 then (let (= flowers (addObj flowers (Flower 3 click)))
                           (= planted (+ planted 1)))
                 else planted))))

  (on true (= bees (foldl beeStep (list) bees)))
  ; the beekeeper refills the flower he stands on
  (on (flowerAt flowers (.. keeper origin))
    (= flowers (updateObj flowers (--> f (updateObj f "nectar" 3))
                          (--> f (== (.. f origin) (.. keeper origin)))))))
