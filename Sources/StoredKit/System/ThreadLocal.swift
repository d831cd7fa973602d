#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One object reference per thread, not retained: whoever sets it keeps the object alive and
/// clears it before letting go. A task-local would not do: a `Task { }` started inside would
/// inherit it and, on another thread, believe itself inside the section the value marks.
///
/// ```swift
/// let marker = ThreadLocal<Marker>()
/// marker.current = myMarker; defer { marker.current = nil }
/// ```
final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    // @unchecked: the key is written once, in init; pthread_getspecific and pthread_setspecific
    // only ever touch the calling thread's slot.
    private var key = pthread_key_t()

    init() {
        // A failure (out of keys, PTHREAD_KEYS_MAX is 1024) leaves key 0's slot shared: never with
        // these few static instances, created at first use.
        pthread_key_create(&key, nil)
    }

    /// The calling thread's value.
    var current: Value? {
        get { pthread_getspecific(key).map { Unmanaged<Value>.fromOpaque($0).takeUnretainedValue() } }
        set { pthread_setspecific(key, newValue.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }) }
    }
}
