  for i64 %i in 0 to %n {
    %acc = add i64 %acc, %i
  }
