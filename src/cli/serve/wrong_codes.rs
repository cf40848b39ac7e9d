//! Wrong class codes slowed down: each device (by address) may try a few
//! wrong codes at once, then one every few seconds; all devices together
//! ten times that. A device over its allowance has its joins refused
//! without the code being checked (so guessing learns nothing), and is
//! told how long to wait. A page rejoining a class with the id the relay
//! gave it there knows the code: it is never counted (it may be waiting
//! for its teacher to bring the class back after a restart).

use roundtable::engine::live::bucket::Bucket;
use roundtable::engine::live::protocol::Limits;
use std::collections::HashMap;
use std::net::IpAddr;

pub struct WrongCodes {
    clients: HashMap<IpAddr, Bucket>,
    overall: Bucket,
    burst: f64,
    every_ms: f64,
    overall_burst: f64,
}

impl WrongCodes {
    pub fn new(limits: &Limits) -> WrongCodes {
        WrongCodes {
            clients: HashMap::new(),
            overall: Bucket::full(limits.wrong_codes_overall_burst.max(1) as f64, 0),
            burst: limits.wrong_codes_burst.max(1) as f64,
            every_ms: limits.wrong_code_every_ms.max(1) as f64,
            overall_burst: limits.wrong_codes_overall_burst.max(1) as f64,
        }
    }

    fn overall_every_ms(&self) -> f64 {
        self.every_ms / 10.0
    }

    /// Whether a join from `ip` may have its code checked now; if not,
    /// the seconds to wait. A device with no recent wrong code is always
    /// checked; one with some waits while every device together is over
    /// the overall allowance too.
    pub fn may_try(&mut self, ip: IpAddr, now: u64) -> Result<(), u64> {
        let (burst, every) = (self.burst, self.every_ms);
        let (overall_burst, overall_every) = (self.overall_burst, self.overall_every_ms());
        self.overall.refill(now, overall_every, overall_burst);
        let Some(client) = self.clients.get_mut(&ip) else {
            return Ok(());
        };
        client.refill(now, every, burst);
        if client.left < 1.0 {
            return Err(client.wait_s(every));
        }
        if client.left < burst && self.overall.left < 1.0 {
            return Err(self.overall.wait_s(overall_every));
        }
        Ok(())
    }

    /// A join from `ip` named a class that is not here.
    pub fn wrong(&mut self, ip: IpAddr, now: u64) {
        let (burst, every) = (self.burst, self.every_ms);
        let client = self
            .clients
            .entry(ip)
            .or_insert_with(|| Bucket::full(burst, now));
        client.refill(now, every, burst);
        client.left -= 1.0;
        let (overall_burst, overall_every) = (self.overall_burst, self.overall_every_ms());
        self.overall.refill(now, overall_every, overall_burst);
        self.overall.left -= 1.0;
    }

    /// Forgets devices whose allowance is whole again.
    pub fn forget_idle(&mut self, now: u64) {
        let (burst, every) = (self.burst, self.every_ms);
        self.clients.retain(|_, b| {
            b.refill(now, every, burst);
            b.left < burst
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            wrong_codes_burst: 3,
            wrong_code_every_ms: 1_000,
            wrong_codes_overall_burst: 5,
            ..Limits::default()
        }
    }

    #[test]
    fn a_device_gets_a_few_tries_then_one_a_period() {
        let mut w = WrongCodes::new(&limits());
        let me: IpAddr = [10, 0, 0, 7].into();
        for _ in 0..3 {
            assert_eq!(w.may_try(me, 0), Ok(()));
            w.wrong(me, 0);
        }
        assert_eq!(w.may_try(me, 0), Err(1), "over: refused, told to wait");
        assert_eq!(w.may_try(me, 999), Err(1));
        assert_eq!(w.may_try(me, 1_000), Ok(()), "one try back a second later");
        w.wrong(me, 1_000);
        assert!(w.may_try(me, 1_000).is_err());
        // Another device is not slowed by this one.
        assert_eq!(w.may_try([10, 0, 0, 8].into(), 1_000), Ok(()));
        w.forget_idle(10_000);
        assert!(w.clients.is_empty(), "whole again: forgotten");
    }

    #[test]
    fn many_devices_together_are_slowed_but_a_clean_one_is_checked() {
        let mut w = WrongCodes::new(&limits());
        // Five devices, one wrong code each: the overall allowance is spent.
        for d in 1..=5u8 {
            let ip: IpAddr = [10, 0, 1, d].into();
            assert_eq!(w.may_try(ip, 0), Ok(()));
            w.wrong(ip, 0);
        }
        let guesser: IpAddr = [10, 0, 1, 1].into();
        assert!(
            w.may_try(guesser, 0).is_err(),
            "a device that guessed waits while all are over"
        );
        assert_eq!(
            w.may_try([10, 0, 2, 1].into(), 0),
            Ok(()),
            "a clean device is checked"
        );
        assert_eq!(
            w.may_try(guesser, 100),
            Ok(()),
            "the overall pace is ten times a device's"
        );
    }
}
