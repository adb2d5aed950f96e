/// The nearest of `candidates` to `word` by edit distance over lower-cased bytes, when close
/// enough to be a typo (at most a third of the word, at least 2); words longer than 64 bytes
/// get no suggestion, so a hostile argument cannot make this slow.
func nearestCandidate(to word: String, in candidates: [String]) -> String? {
    let w = Array(word.lowercased().utf8)
    guard w.count <= 64, !w.isEmpty else { return nil }
    let limit = max(2, w.count / 3)
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let c = Array(candidate.lowercased().utf8)
        guard c.count <= 64, abs(c.count - w.count) <= limit else { continue }
        var previous = Array(0...c.count)
        var current = [Int](repeating: 0, count: c.count + 1)
        for i in 1...w.count {
            current[0] = i
            for j in stride(from: 1, through: c.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (w[i - 1] == c[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        let d = previous[c.count]
        if d <= limit, d < best?.distance ?? Int.max { best = (candidate, d) }
    }
    return best?.candidate
}
