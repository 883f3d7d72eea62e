/// WheelCore: the pure state machines behind Wheel's UI objects — circular picker wheels,
/// feed pagination, lazily bound pagers, keyboard-avoiding forms.
///
/// Cores take state and events in and give state and effects out. They import nothing
/// but the standard library: no Lua, no I/O, no clocks they are not handed. Each arrives
/// with the issue that builds it; this file names the module until then.
public enum WheelCore {}
