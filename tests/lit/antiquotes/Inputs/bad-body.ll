; A fragment with a mistake on its third line.
%t = add i32 %x, 1
  %y = add i32 %x 1
