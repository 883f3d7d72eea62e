/// WheelCore: the pure state machines behind Wheel's UI objects: circular picker wheels
/// (`CircularWheel`, `FiniteRowAdapter`), feeds (`FeedCore`), pagers (`PagerCore`) and
/// keyboard-avoiding forms (`KeyboardAvoidance`, `FieldOrder`, `FormCore`).
///
/// Cores take state and events in and give state and effects out. They import nothing
/// but the standard library: no Lua, no I/O, no clocks they are not handed.
public enum WheelCore {}
