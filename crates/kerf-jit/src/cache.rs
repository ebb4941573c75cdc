//! A bounded least-recently-used map of once-initialized values: concurrent requests for
//! one key run its initializer once; the others wait for its result.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock};

struct Entry<V> {
    slot: Arc<OnceLock<V>>,
    used: u64,
}

struct Inner<K, V> {
    map: HashMap<K, Entry<V>>,
    tick: u64,
}

pub(crate) struct Lru<K, V> {
    capacity: usize,
    inner: Mutex<Inner<K, V>>,
}

impl<K: Hash + Eq + Clone, V: Clone> Lru<K, V> {
    pub fn new(capacity: usize) -> Self {
        Lru { capacity, inner: Mutex::new(Inner { map: HashMap::new(), tick: 0 }) }
    }

    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).map.len()
    }

    /// The value of `key`, computing it with `init` (outside the map's lock) if absent.
    pub fn get_or_init(&self, key: K, init: impl FnOnce() -> V) -> V {
        let slot = {
            let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            inner.tick += 1;
            let tick = inner.tick;
            if let Some(e) = inner.map.get_mut(&key) {
                e.used = tick;
                e.slot.clone()
            } else {
                if inner.map.len() >= self.capacity {
                    // Evict the least recently used; its value lives on in whoever holds it.
                    if let Some(old) = inner.map.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone()) {
                        inner.map.remove(&old);
                    }
                }
                let slot = Arc::new(OnceLock::new());
                inner.map.insert(key, Entry { slot: slot.clone(), used: tick });
                slot
            }
        };
        slot.get_or_init(init).clone()
    }
}
