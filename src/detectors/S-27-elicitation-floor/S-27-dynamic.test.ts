import dynamicPart from './dynamic.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// Recorded probes of the little servers in fixtures/*/v2-*-live (server.mjs, probe.json, session.json).
testDetectorFolder('S-27', [dynamicPart], import.meta.url);
