fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let mb = src.len() as f64 / 1e6;
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let mut n = 0usize;
        for t in ptx_grammar::lexer::Lexer::new(&src) {
            if t.is_ok() {
                n += 1;
            }
        }
        let lex = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let (m, d) = ptx_grammar::parse(&src);
        let parse = t.elapsed().as_secs_f64();
        println!(
            "tokens {n} lex {:.0} MB/s parse {:.0} MB/s items {} diags {}",
            mb / lex,
            mb / parse,
            m.items.len(),
            d.len()
        );
    }
}
