/// The one ordering rule shared by tabs in a section and by sections in the sidebar.
///
/// Items listed in the stored order come in that order. Every other item (added by a later app
/// version, without an ID, or not reorderable) goes right after the item that precedes it in
/// the builder, or first when it is first in the builder; so new tabs land next to their
/// builder neighbours and several unlisted items keep their builder order among themselves.
enum StoredOrder {
    static func arrange<Item>(_ items: [Item], by storedOrder: [String]?, placementID: (Item) -> String?) -> [Item] {
        guard let storedOrder else { return items }
        var rankByID: [String: Int] = [:]
        for (rank, id) in storedOrder.enumerated() where rankByID[id] == nil {
            rankByID[id] = rank
        }
        var listed: [(rank: Int, index: Int)] = []
        for (index, item) in items.enumerated() {
            if let id = placementID(item), let rank = rankByID[id] {
                listed.append((rank, index))
            }
        }
        listed.sort { ($0.rank, $0.index) < ($1.rank, $1.index) }
        var arranged = listed.map(\.index)
        let listedIndices = Set(arranged)
        // Unlisted items are visited in builder order, so `index - 1` is always already arranged.
        for index in items.indices where !listedIndices.contains(index) {
            let position = arranged.firstIndex(of: index - 1).map { $0 + 1 } ?? 0
            arranged.insert(index, at: position)
        }
        return arranged.map { items[$0] }
    }

    /// `newOrder` plus the IDs of `oldOrder` the app does not know, each after its old predecessor.
    static func merge(_ newOrder: [String], keepingUnknownFrom oldOrder: [String], isKnown: (String) -> Bool) -> [String] {
        var merged = newOrder
        for (position, id) in oldOrder.enumerated() where !isKnown(id) && !merged.contains(id) {
            let predecessor = oldOrder[..<position].last { merged.contains($0) }
            let insertionPoint = predecessor.flatMap { merged.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            merged.insert(id, at: insertionPoint)
        }
        return merged
    }
}
