; CHANGED PROGRAM (change detection): digging into sand also digs away the sand cell behind it (two cells at once), once the trigger has held.
; dig: a 16x16 sandbox. A field of sand (x 1..14, rows 3..14) hides a random layer of gems
; (gold) and rocks (gray): every column holds one hidden thing at a random depth in rows 4..8
; and another in rows 9..14, each a gem or a rock at random. Arrows move the white digger;
; pushing into sand digs that cell away (the digger stays put) and shows what lies under it.
; The digger walks on dug or open ground and over gems, which it collects (a gold pip per gem
; on row 0); rocks block it. A click on a bare rock next to the digger cracks it (dark gray)
; and a second click breaks it away. Other clicks and noop change nothing.
(program
  (= GRID_SIZE 16)

  (object Digger (Cell 0 0 "white"))
  (object Sand (Cell 0 0 "sandybrown"))
  (object Item (: stone Bool) (: cracked Bool)
    (Cell 0 0 (if stone then (if cracked then "darkgray" else "gray") else "gold")))
  (object Pip (Cell 0 0 "gold"))

  (= posAt (--> (q dx dy) (Position (+ (.. q x) dx) (+ (.. q y) dy))))
  (= onGrid (--> q (& (& (>= (.. q x) 0) (< (.. q x) 16)) (& (>= (.. q y) 1) (< (.. q y) 16)))))
  (= sandAt (--> q (any (--> sd (== (.. sd origin) q)) sand)))
  (= rockAt (--> q (any (--> it (& (.. it stone) (== (.. it origin) q))) items)))
  (= gemAt (--> q (any (--> it (& (! (.. it stone)) (== (.. it origin) q))) items)))
  (= nextTo (--> q (== (+ (abs (- (.. q x) (.. (.. digger origin) x)))
                          (abs (- (.. q y) (.. (.. digger origin) y)))) 1)))
  (= pick (--> kinds (== (uniformChoice kinds) "rock")))
  (= kinds (list "gem" "rock" "rock"))

  ; one arrow: dig the sand ahead, else step ahead unless a rock is there (taking a gem)
  (= walk (--> (dx dy)
    (let (= ahead (posAt (.. digger origin) dx dy))
         (if (! (onGrid ahead)) then moves
          else (if (sandAt ahead)
                then (let (= beyond (posAt ahead dx dy))
                          (= sand (removeObj sand (--> sd (| (== (.. sd origin) ahead)
                                                             (& changed (== (.. sd origin) beyond))))))
                          (= dug (+ dug 1)))
          else (if (rockAt ahead) then moves
          else (let (= digger (updateObj digger "origin" ahead))
                    (= moves (+ moves 1))
                    (if (gemAt ahead)
                     then (let (= items (removeObj items (--> it (== (.. it origin) ahead))))
                               (= gems (+ gems 1)))
                     else gems))))))))

  (= gems (initnext 0 (prev gems)))
  (= dug (initnext 0 (prev dug)))
  (= moves (initnext 0 (prev moves)))
  (= broken (initnext 0 (prev broken)))
  (= items (initnext
    (concat (map (--> cx (list (Item (pick kinds) false (Position cx (uniformChoice (range 4 9))))
                               (Item (pick kinds) false (Position cx (uniformChoice (range 9 15))))))
                 (range 1 15)))
    (prev items)))
  (= sand (initnext (concat (map (--> cy (map (--> cx (Sand (Position cx cy))) (range 1 15)))
                                 (range 3 15)))
                    (prev sand)))
  (= digger (initnext (Digger (Position 7 2)) (prev digger)))
  (= pips (initnext (list) (prev pips)))

  (on left (walk -1 0))
  (on right (walk 1 0))
  (on up (walk 0 -1))
  (on down (walk 0 1))
  (on (& clicked (& (nextTo click) (& (rockAt click) (! (sandAt click)))))
    (if (any (--> it (& (.. it cracked) (== (.. it origin) click))) items)
     then (let (= items (removeObj items (--> it (== (.. it origin) click))))
               (= broken (+ broken 1)))
     else (= items (map (--> it (if (== (.. it origin) click) then (updateObj it "cracked" true) else it))
                        items))))
  (on (!= (length pips) (min gems 16))
    (= pips (map (--> i (Pip (Position i 0))) (range 0 (min gems 16)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true)))
