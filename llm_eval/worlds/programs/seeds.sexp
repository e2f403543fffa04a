; seeds: a 16x16 field under a changing wind. The white hopper on row 1 moves with
; left/right; down drops a seed (tan) from the bag (tan pips on row 0). A seed falls two
; rows per tick and drifts one column with the wind each tick. The wind vane at the
; top right (white centre (14,0)) shows a sky-blue cell on the side the wind blows to, or
; none when calm; every 6 ticks the wind turns at random to west, calm or east. A seed that
; reaches row 14 over brown soil with no plant there sprouts; over gray stone or the blue
; pond, or onto a plant, it is lost. Sprouts grow a cell every 5 ticks up to 4 cells and
; then flower (yellow). A click on a flower harvests it: two seeds back into the bag (at
; most 10) and the plant starts again as a sprout. up, noop and other clicks do nothing.
(program
  (= GRID_SIZE 16)

  (object Hopper (Cell 0 0 "white"))
  (object Seed (: px Int) (: want Int) (Cell 0 0 "tan"))
  (object Plant (: tall Int) (: age Int)
    (map (--> k (Cell 0 (if (< k tall) then (- 0 k) else 40)
                      (if (& (== k 3) (== tall 4)) then "yellow" else "green")))
         (range 0 4)))
  (object Ground (: kind Int) (Cell 0 0 (at groundColours kind)))
  (object Vane (: blow Int)
    (list (Cell 0 0 "white") (Cell blow 0 (if (== blow 0) then "white" else "skyblue"))))
  (object Pip (Cell 0 0 "tan"))

  (= groundColours (list "brown" "gray" "blue"))
  (= groundKind (--> gx (if (| (== gx 5) (== gx 6)) then 1 else (if (| (== gx 10) (== gx 11)) then 2 else 0))))
  (= clamp (--> v (max 0 (min 15 v))))
  (= plantAt (--> gx (any (--> pl (== (.. (.. pl origin) x) gx)) plants)))

  ; one tick of a falling seed: down two rows (to row 14 at most) and one column with the wind
  (= fall (--> sd
    (let (= push wind)
         (= here (.. sd origin))
         (Seed (.. here x) push (Position (clamp (+ (.. here x) push)) (min 14 (+ (.. here y) 2)))))))
  (= grow (--> pl
    (let (= older (+ (.. pl age) 1))
         (Plant (min 4 (+ 1 (/ older 5))) older (.. pl origin)))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= wind (initnext 0 (prev wind)))
  (= bag (initnext 5 (prev bag)))
  (= dropped (initnext 0 (prev dropped)))
  (= planted (initnext 0 (prev planted)))
  (= lost (initnext 0 (prev lost)))
  (= harvested (initnext 0 (prev harvested)))
  (= ground (initnext (map (--> gx (Ground (groundKind gx) (Position gx 15))) (range 0 16)) (prev ground)))
  (= plants (initnext (list) (prev plants)))
  (= seeds (initnext (list) (prev seeds)))
  (= hopper (initnext (Hopper (Position 7 1)) (prev hopper)))
  (= vane (initnext (Vane 0 (Position 14 0)) (prev vane)))
  (= pips (initnext (map (--> i (Pip (Position i 0))) (range 0 5)) (prev pips)))

  (on (& left (> (.. (.. hopper origin) x) 0)) (= hopper (moveLeft hopper)))
  (on (& right (< (.. (.. hopper origin) x) 15)) (= hopper (moveRight hopper)))
  (on (& down (> bag 0))
    (let (= bag (- bag 1))
         (= dropped (+ dropped 1))
         (= seeds (addObj seeds (Seed (.. (.. hopper origin) x) 0 (Position (.. (.. hopper origin) x) 1))))))
  (on (& clicked (any (--> pl (& (== (.. pl tall) 4) (== (Position (.. (.. pl origin) x) 11) click))) plants))
    (let (= plants (map (--> pl (if (== (Position (.. (.. pl origin) x) 11) click)
                                 then (Plant 1 0 (.. pl origin)) else pl)) plants))
         (= harvested (+ harvested 1))
         (= bag (min 10 (+ bag 2)))))
  (on true
    (let (= landing (filter (--> sd (== (.. (.. sd origin) y) 14)) seeds))
         (= good (filter (--> sd (& (== (groundKind (.. (.. sd origin) x)) 0) (! (plantAt (.. (.. sd origin) x))))) landing))
         (= plants (concat (list (map grow plants) (map (--> sd (Plant 1 0 (.. sd origin))) good))))
         (= planted (+ planted (length good)))
         (= lost (+ lost (- (length landing) (length good))))
         (= seeds (map fall (filter (--> sd (< (.. (.. sd origin) y) 14)) seeds)))
         (= wind (if (== (% clock 6) 5) then (uniformChoice (list -1 0 1)) else wind))
         (= vane (Vane wind (Position 14 0)))
         (= pips (map (--> i (Pip (Position i 0))) (range 0 bag))))))
