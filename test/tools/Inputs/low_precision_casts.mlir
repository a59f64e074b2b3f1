// f32 <-> f16 / bf16 / i32 / f64 casts: compiled and interpreted results
// both equal low_precision_oracle.py's, exactly (round to nearest even,
// ties, subnormals, overflow to infinity, NaN).
module @low_precision_casts {
  func.func @casts(%x: tensor<?xf32>, %i: tensor<?xi32>)
      -> (tensor<?xbf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xi32>, tensor<?xi32>, tensor<?xf64>) {
    %b = graph.cast %x : (tensor<?xf32>) -> tensor<?xbf16>
    %h = graph.cast %x : (tensor<?xf32>) -> tensor<?xf16>
    %bh = graph.cast %b : (tensor<?xbf16>) -> tensor<?xf16>
    %hb = graph.cast %h : (tensor<?xf16>) -> tensor<?xbf16>
    %ib = graph.cast %i : (tensor<?xi32>) -> tensor<?xbf16>
    %ih = graph.cast %i : (tensor<?xi32>) -> tensor<?xf16>
    %bi = graph.cast %b : (tensor<?xbf16>) -> tensor<?xi32>
    %hi = graph.cast %h : (tensor<?xf16>) -> tensor<?xi32>
    %hd = graph.cast %h : (tensor<?xf16>) -> tensor<?xf64>
    return %b, %h, %bh, %hb, %ib, %ih, %bi, %hi, %hd : tensor<?xbf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xbf16>, tensor<?xbf16>, tensor<?xf16>, tensor<?xi32>, tensor<?xi32>, tensor<?xf64>
  }
}
