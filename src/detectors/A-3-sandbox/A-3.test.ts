import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// Both parts judge the same fixture Apps: the dynamic part their recorded rendering, the static part their
// View's code (UI source and built bundle).
testDetectorFolder('A-3', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
testDetectorFolder('A-3', detectors.filter((d) => d.genre === 'static'), import.meta.url);
