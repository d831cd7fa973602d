import Foundation
import Testing

@testable import StoredKit

/// A backend chosen at run time: `PreferenceStore(condition ? .sqlite(at:) : .plist(at:))`
/// compiles, and the store holds the real backend, not the wrapper.
@Suite struct AnyBackendTests {
    @Test(arguments: [true, false])
    func aConditionBetweenTwoBackendsOpensTheChosenOne(useSQLite: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try PreferenceStore(useSQLite ? .sqlite(at: directory.database) : .plist(at: directory.file("a.plist")))
        store.set(3, forKey: "count")
        try store.flush()

        #expect((store.backend is SQLiteBackend) == useSQLite)
        #expect((store.backend is PlistBackend) == !useSQLite)
        let file = useSQLite ? directory.database : directory.file("a.plist")
        #expect(try PreferenceStore(fileAt: file).value(forKey: "count", as: Int.self) == 3)
    }

    @Test func aWrappedBackendOfYourOwnIsOpenedWithItsData() throws {
        let memory = MemoryBackend(values: ["name": .string("Ada")])
        let store = try PreferenceStore(AnyBackend(memory), durability: .immediate)
        store.set("Grace", forKey: "name")

        #expect(store.backend === memory)
        #expect(try memory.load().values["name"] == .string("Grace"))
    }

    @Test func theSuiteFactoryNamesTheSameFileAsTheBackendsOwn() {
        let erased = AnyBackend.plist(suite: "com.example.any-backend")
        let direct: PlistBackend = .plist(suite: "com.example.any-backend")
        #expect(erased.base.location == direct.location)
    }
}
