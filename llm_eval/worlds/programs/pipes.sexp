; pipes: a 16x16 plumbing puzzle. The board is a 5x5 field of 3x3 tiles. The top-left tile
; is the water source, the bottom-right tile the drain (it opens to the left); the other
; tiles hold straight and bent pipe segments (tan when dry) or rocks (dark gray). A click
; anywhere on a pipe's tile turns it a quarter turn clockwise. Water leaves the source to
; the right and runs through the chain of pipes whose openings meet, one tile further per
; tick (wet pipes turn blue); turning a wet pipe cuts the chain and the water beyond it is
; gone at once. While water stands in the drain (green), the light-blue gauge on the bottom
; row rises one cell per tick (it falls again when the drain runs dry). Up opens and down
; closes the source valve (closed: the source is dark blue and the water recedes one tile
; per tick); right sets high pressure (the source's outlet is cyan and water advances two
; tiles per tick), left back to low pressure (one tile per tick).
(program
  (= GRID_SIZE 16)

  ; a tile: kind pk (0 straight, 1 bend, 2 rock, 3 source, 4 drain), turn pt (0..3), wet pw;
  ; its arms (ax, ay) and (bx, by) and colours core and tint are kept up to date by `dress`
  (object Pipe (: pk Int) (: pt Int) (: pw Bool) (: ax Int) (: ay Int) (: bx Int) (: by Int)
    (: core String) (: tint String)
    (list (Cell 0 0 core) (Cell ax ay tint) (Cell bx by tint)))
  (object Bead (Cell 0 0 "lightblue"))

  ; directions: 0 up, 1 right, 2 down, 3 left; -1 none (the arm is drawn on the centre)
  (= armX (--> d (if (== d 1) then 1 else (if (== d 3) then -1 else 0))))
  (= armY (--> d (if (== d 0) then -1 else (if (== d 2) then 1 else 0))))
  ; the two openings of a tile: a straight pipe is horizontal on even turns, vertical on odd
  ; ones; a bend opens to `turn` and the next direction clockwise
  (= openA (--> (k t) (if (== k 0) then (- 1 (% t 2)) else (if (== k 2) then -1 else t))))
  (= openB (--> (k t) (if (== k 0) then (- 3 (% t 2))
                       else (if (== k 1) then (% (+ t 1) 4) else (if (== k 2) then -1 else t)))))
  (= hueOf (--> (k w mid)
    (if (== k 2) then "darkgray"
     else (if (== k 3) then (if mid then (if valveOpen then "skyblue" else "darkblue")
                             else (if (> speed 1) then "cyan" else "blue"))
     else (if (== k 4) then (if w then "green" else "darkgreen")
     else (if w then "blue" else "tan"))))))
  (= dress (--> (k t w at)
    (Pipe k t w (armX (openA k t)) (armY (openA k t)) (armX (openB k t)) (armY (openB k t))
          (hueOf k w true) (hueOf k w false) at)))
  (= redress (--> p (dress (.. p pk) (.. p pt) (.. p pw) (.. p origin))))

  ; the source's valve (up opens, down closes) and pressure (1 low, 2 high)
  (= valveOpen true)
  (= speed 1)
  ; the water's route (tiles from the source on), traced again after every turn
  (= route (list 0))
  (= retrace true)
  (= centre (--> i (Position (+ 1 (* 3 (% i 5))) (+ 1 (* 3 (/ i 5))))))
  (= tileAt (--> q (+ (* (/ (.. q y) 3) 5) (/ (.. q x) 3))))
  (= onBoard (--> q (& (< (.. q x) 15) (< (.. q y) 15))))
  ; kind and turn of the 25 tiles, row by row
  (= layout (list (list 3 1) (list 0 1) (list 1 3) (list 1 0) (list 0 0)
                  (list 0 1) (list 2 0) (list 0 0) (list 1 2) (list 2 0)
                  (list 1 1) (list 1 2) (list 1 1) (list 2 0) (list 0 1)
                  (list 0 0) (list 0 0) (list 1 0) (list 0 1) (list 1 3)
                  (list 2 0) (list 1 2) (list 0 1) (list 0 1) (list 4 3)))

  (= flow (initnext 1 (prev flow)))
  (= level (initnext 0 (prev level)))
  (= turns (initnext 0 (prev turns)))
  (= pipes (initnext (map (--> ix (dress (at (at layout ix) 0) (at (at layout ix) 1) (== ix 0) (centre ix)))
                          (range 0 25))
                     (prev pipes)))
  (= gauge (initnext (list) (prev gauge)))

  ; one step of tracing the water's route: the route is a list of tile*4+exit direction,
  ; ended by -1 where the water cannot go on
  (= traceStep (--> (acc j)
    (let (= fLast (tail acc))
      (if (< fLast 0) then acc
       else (let (= fDir (% fLast 4))
                 (= fx (+ (% (/ fLast 4) 5) (armX fDir)))
                 (= fy (+ (/ (/ fLast 4) 5) (armY fDir)))
                 (if (| (| (< fx 0) (> fx 4)) (| (< fy 0) (> fy 4)))
                  then (concat (list acc (list -1)))
                  else (let (= fIdx (+ (* fy 5) fx))
                            (= fTile (at pipes fIdx))
                            (= fIn (% (+ fDir 2) 4))
                            (= fA (openA (.. fTile pk) (.. fTile pt)))
                            (= fB (openB (.. fTile pk) (.. fTile pt)))
                            (if (| (== (.. fTile pk) 3) (& (!= fA fIn) (!= fB fIn)))
                             then (concat (list acc (list -1)))
                             else (if (== (.. fTile pk) 4)
                                   then (concat (list acc (list (* fIdx 4) -1)))
                                   else (concat (list acc (list (+ (* fIdx 4) (if (== fA fIn) then fB else fA))))))))))))))

  (on up (= valveOpen true))
  (on down (= valveOpen false))
  (on right (= speed 2))
  (on left (= speed 1))
  (on (| (| left right) (| up down)) (= pipes (updateObj pipes redress (--> p (== (.. p pk) 3)))))
  (on (& clicked (onBoard click))
    (let (= hitTile (at pipes (tileAt click)))
         (if (< (.. hitTile pk) 2)
          then (let (= pipes (updateObj pipes (--> p (dress (.. p pk) (% (+ (.. p pt) 1) 4) (.. p pw) (.. p origin)))
                                       (--> p (== (.. p origin) (.. hitTile origin)))))
                    (= retrace true)
                    (= turns (+ turns 1)))
          else turns)))

  ; the water: trace the route from the source (again only after a turn), move the water
  ; front, wet the tiles it covers
  (on true
    (let (= route (if retrace
                   then (map (--> e (/ e 4)) (filter (--> e (>= e 0)) (foldl traceStep (list 1) (range 0 24))))
                   else route))
         (= lastFlow flow)
         (= flow (min (length route) (if valveOpen then (+ flow speed) else (max 1 (- flow 1)))))
         (if (| retrace (!= flow lastFlow))
          then (let (= wetTiles (map (--> i (at route i)) (range 0 flow)))
                    (= pipes (updateObj pipes (--> p (dress (.. p pk) (.. p pt) (! (.. p pw)) (.. p origin)))
                                        (--> p (!= (.. p pw) (in (tileAt (.. p origin)) wetTiles))))))
          else pipes)
         (= retrace false)
         (= level (if (.. (at pipes 24) pw) then (min 16 (+ level 1)) else (max 0 (- level 1))))
         (= gauge (if (== (length gauge) level) then gauge
                   else (map (--> i (Bead (Position i 15))) (range 0 level)))))))
