; "transparent" is the palette's mask (index 0): a drawn cell would read as hidden
(program
  (= GRID_SIZE 4)
  (= background "transparent"))
