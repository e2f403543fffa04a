; crystals: an 8x8 dish where coloured crystals grow from seeds. Every tick one crystal cell,
; chosen at random, tries to grow one cell in a random direction (or rests): into an empty
; cell it adds a crystal of its own colour; into a crystal of another colour the two merge
; by colour: red and blue make purple, red and yellow make orange, blue and yellow make
; green; any other pair: the newcomer's colour takes over. left/right choose the seed colour (red,
; yellow, blue, in a cycle; red at first); a click on an empty cell plants a seed of that
; colour, a click on a crystal of another colour merges the seed colour into it, and a
; click on a crystal of the same colour breaks it. down stops the growth (frost), up starts
; it again.
(program
  (= GRID_SIZE 8)

  (object Gem (: hue String) (Cell 0 0 hue))

  (= palette (list "red" "yellow" "blue"))
  ; 5 choices (4 directions and rest) and 61 picks: the generator draws badly over a
  ; power-of-two number of choices
  (= turns (list (Position 1 0) (Position -1 0) (Position 0 1) (Position 0 -1) (Position 0 0)))
  (= picks (range 0 61))
  (= both (--> (a b u v) (| (& (== a u) (== b v)) (& (== a v) (== b u)))))
  (= mix (--> (a b)
    (if (both a b "red" "blue") then "purple"
     else (if (both a b "red" "yellow") then "orange"
     else (if (both a b "blue" "yellow") then "green"
     else b)))))
  (= inside (--> q (& (& (>= (.. q x) 0) (< (.. q x) 8)) (& (>= (.. q y) 0) (< (.. q y) 8)))))
  (= gemsAt (--> q (filter (--> g (== (.. g origin) q)) gems)))

  (= planted (initnext 0 (prev planted)))
  (= mixes (initnext 0 (prev mixes)))
  (= broken (initnext 0 (prev broken)))
  (= grown (initnext 0 (prev grown)))
  (= seedAt (initnext 0 (prev seedAt)))
  (= frost (initnext false (prev frost)))
  (= gems (initnext (list (Gem "red" (Position 1 1)) (Gem "blue" (Position 6 2)) (Gem "yellow" (Position 3 6)))
                    (prev gems)))

  (on left (= seedAt (% (+ seedAt 2) 3)))
  (on right (= seedAt (% (+ seedAt 1) 3)))
  (on up (= frost false))
  (on down (= frost true))
  (on (& clicked (inside click))
    (let (= seedHue (at palette seedAt))
         (= here (gemsAt click))
         (if (== (length here) 0)
          then (let (= gems (addObj gems (Gem seedHue click))) (= planted (+ planted 1)))
          else (if (== (.. (head here) hue) seedHue)
                then (let (= gems (removeObj gems (--> g (== (.. g origin) click)))) (= broken (+ broken 1)))
                else (let (= gems (map (--> g (if (== (.. g origin) click) then (updateObj g "hue" (mix (.. g hue) seedHue)) else g)) gems))
                          (= mixes (+ mixes 1)))))))

  ; growth: two draws every tick, whatever happens
  (on true
    (let (= pick (uniformChoice picks))
         (= turn (uniformChoice turns))
         (if (| frost (| ((clicked)) (== (length gems) 0))) then gems
          else (let (= grower (at gems (% pick (length gems))))
                    (= spot (Position (+ (.. (.. grower origin) x) (.. turn x)) (+ (.. (.. grower origin) y) (.. turn y))))
                    (= there (gemsAt spot))
                    (if (! (inside spot)) then gems
                     else (if (== (length there) 0)
                           then (let (= gems (addObj gems (Gem (.. grower hue) spot))) (= grown (+ grown 1)))
                           else (if (== (.. (head there) hue) (.. grower hue)) then gems
                           else (if (== (mix (.. (head there) hue) (.. grower hue)) (.. (head there) hue)) then gems
                           else (let (= gems (map (--> g (if (== (.. g origin) spot) then (updateObj g "hue" (mix (.. g hue) (.. grower hue))) else g)) gems))
                                     (= mixes (+ mixes 1))))))))))))
