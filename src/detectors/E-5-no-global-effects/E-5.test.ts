import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';

testDetectorFolder('E-5', detectors, import.meta.url);
testMarkers('E-5', detectors, import.meta.url);
