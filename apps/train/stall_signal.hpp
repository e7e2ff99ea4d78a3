#pragma once
// Fault injection for soak runs: an operator (bench/chaos_soak.py) asks a running client, by
// SIGUSR1, to make its next training step hang the first ps task, as a kernel that never
// returns would, at a moment the client cannot foresee. A signal is the one channel into a
// running client that needs no new port or file; the request is one async-signal-safe flag.

namespace caflow::train_app {

// Routes SIGUSR1 to the flag below. Called once, before training starts.
void install_stall_signal();
// Whether SIGUSR1 arrived since the last call (and clears it).
bool take_stall_request();

}  // namespace caflow::train_app
