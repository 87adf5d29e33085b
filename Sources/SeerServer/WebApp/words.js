// Plain words for the API's codes, and the settings kept on this device (no secrets: keys are not here).

export const VERDICTS = {
  authentic: { label: "Authentic", text: "This product is genuine." },
  counterfeit: { label: "Counterfeit", text: "This product is not genuine." },
  suspicious: { label: "Suspicious", text: "Something about this code is not right." },
  unknown: { label: "Unknown", text: "Seer cannot tell whether this product is genuine." },
};

const REASONS = {
  badSignature: "The code's signature does not match its contents.",
  revokedKey: "It is signed with a key the brand has withdrawn.",
  unknownKey: "It is signed with a key nobody registered.",
  wrongBrandKey: "It is signed with another brand's key.",
  validSignature: "The brand's signature is valid.",
  unsigned: "The code carries no signature.",
  invalidPayload: "The code looks like a product code but its contents are broken.",
  unknownProduct: "The product is not in the registry.",
  unknownSerial: "This serial number is not in the registry.",
  registeredSerial: "The serial number is registered.",
  recalled: "This item has been recalled.",
  decommissioned: "This serial number was taken out of use; its code is being reused.",
  cloneSuspected: "The scan history suggests the code has been copied.",
  tooManyScans: "This serial number has been scanned unusually often.",
  tooManyDevices: "This serial number has been scanned on too many phones.",
  tooManyCountries: "This serial number has been scanned in too many countries.",
  impossibleTravel: "Two scans were too far apart for the time between them.",
  duplicateInBatch: "The same serial number appeared twice in this batch.",
  duplicateInPhoto: "The same serial number appeared twice in this photo.",
  outsideMarket: "It was scanned outside the product's markets.",
  notAProductCode: "This code is not a product code.",
};

/** A reason code in plain words (an unknown code is shown as it is, as text). */
export function reason(code) {
  return REASONS[code] || String(code);
}

export const PERIODS = { day: "Today", week: "This week", month: "This month", all: "All time" };

export const PRESETS = {
  lights: "Your lights are on.",
  blocking: "Your car is blocking mine.",
  window: "A window of your car is open.",
  tow: "Your car is about to be towed.",
  damage: "Your car may have been damaged; please check it.",
};

const SETTINGS = "seer.settings";
const DEFAULTS = { mode: "single", flash: false, period: "week" };

export function settings() {
  try {
    const stored = JSON.parse(localStorage.getItem(SETTINGS) || "{}");
    return {
      mode: stored.mode === "batch" ? "batch" : "single",
      flash: stored.flash === true,
      period: Object.hasOwn(PERIODS, stored.period) ? stored.period : DEFAULTS.period,
    };
  } catch {
    return { ...DEFAULTS };
  }
}

export function saveSettings(value) {
  localStorage.setItem(SETTINGS, JSON.stringify({ ...settings(), ...value }));
}
